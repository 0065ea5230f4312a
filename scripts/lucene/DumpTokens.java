// Prints, for each line "id<TAB>text" of standard input, the terms Anserini's default English
// analyzer (io.anserini.analysis.DefaultEnglishAnalyzer: Lucene's StandardTokenizer, possessive
// and lower-case filters, Lucene's English stop set, the Porter stemmer) makes of the text:
// "id<TAB>term term term". Used by scripts/lucene-reference.sh to record a fixture that the Rust
// analyzer's tests compare with; run with Anserini's fat jar on the class path.
import io.anserini.analysis.DefaultEnglishAnalyzer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;

public class DumpTokens {
  public static void main(String[] args) throws Exception {
    Analyzer analyzer = DefaultEnglishAnalyzer.newDefaultInstance();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    String line;
    while ((line = in.readLine()) != null) {
      int tab = line.indexOf('\t');
      if (tab < 0) continue;
      StringBuilder sb = new StringBuilder(line.substring(0, tab)).append('\t');
      try (TokenStream ts = analyzer.tokenStream("contents", line.substring(tab + 1))) {
        CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
        ts.reset();
        boolean first = true;
        while (ts.incrementToken()) {
          if (!first) sb.append(' ');
          sb.append(term);
          first = false;
        }
        ts.end();
      }
      out.println(sb);
    }
    out.flush();
  }
}
