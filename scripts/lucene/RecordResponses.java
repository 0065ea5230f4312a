// Indexes the bundled Acme Sync sample with real Lucene (9.9.1, from Anserini's fat jar) and
// writes what Elasticsearch 8 and Solr 9 would answer with explain on: each hit's
// IndexSearcher.explain tree, in their response shapes. Run by scripts/lucene-reference.sh:
//   java -cp anserini-fatjar.jar:classes RecordResponses sample-corpus/acme-sync/corpus.jsonl OUT_DIR
//
// What each engine adds around Lucene is reproduced here, and only that:
// - Elasticsearch 8 scores with LegacyBM25Similarity (Lucene's BM25Similarity with the boost
//   multiplied by k1 + 1, to keep BM25's scores from before Lucene 8) wrapped in its
//   PerFieldSimilarity; the english analyzer is Lucene's EnglishAnalyzer; `match` is a Boolean
//   query of SHOULD term queries (Lucene's QueryBuilder), `multi_match` (best_fields) a
//   DisjunctionMaxQuery of one such query per field, `match_phrase` a PhraseQuery.
// - Solr 9 scores with Lucene's BM25Similarity wrapped in its SchemaSimilarity; edismax with
//   qf is a required Boolean query of one DisjunctionMaxQuery per word over the fields.
// Two indexes: "acme" keeps title and text as two fields; "acme-flat" has one field, text,
// holding the title, a newline and the text (as RankLens and Anserini's BEIR flat index do).
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInvertState;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.DisjunctionMaxQuery;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.search.similarities.PerFieldSimilarityWrapper;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.index.Term;
import org.apache.lucene.sandbox.search.CombinedFieldQuery;
import org.apache.lucene.search.SynonymQuery;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.QueryBuilder;

public class RecordResponses {
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  static final String QUESTION = "How long before saved results expire?";

  /** Lucene's misc-module LegacyBM25Similarity, as Elasticsearch uses it: boost × (k1 + 1). */
  static final class LegacyBM25Similarity extends Similarity {
    final BM25Similarity bm25 = new BM25Similarity(1.2f, 0.75f);

    @Override
    public long computeNorm(FieldInvertState state) {
      return bm25.computeNorm(state);
    }

    @Override
    public SimScorer scorer(float boost, CollectionStatistics stats, TermStatistics... terms) {
      return bm25.scorer(boost * (1 + 1.2f), stats, terms);
    }
  }

  /** Elasticsearch's per-field wrapper (its name is what explanations print). */
  static final class PerFieldSimilarity extends PerFieldSimilarityWrapper {
    final Similarity sim = new LegacyBM25Similarity();

    @Override
    public Similarity get(String field) {
      return sim;
    }
  }

  /** Solr's per-field wrapper (its name is what explanations print). */
  static final class SchemaSimilarity extends PerFieldSimilarityWrapper {
    final Similarity sim = new BM25Similarity(1.2f, 0.75f);

    @Override
    public Similarity get(String field) {
      return sim;
    }
  }

  record Doc(String id, String title, String text) {}

  static List<Doc> read(Path corpus) throws Exception {
    List<Doc> docs = new ArrayList<>();
    try (BufferedReader in = Files.newBufferedReader(corpus, StandardCharsets.UTF_8)) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) continue;
        JsonNode d = JSON.readTree(line);
        docs.add(new Doc(d.get("_id").asText(), d.path("title").asText(""), d.path("text").asText("")));
      }
    }
    return docs;
  }

  static IndexSearcher index(List<Doc> docs, boolean flat, Similarity sim) throws Exception {
    Analyzer analyzer = new EnglishAnalyzer();
    ByteBuffersDirectory dir = new ByteBuffersDirectory();
    IndexWriterConfig config = new IndexWriterConfig(analyzer).setSimilarity(sim);
    try (IndexWriter w = new IndexWriter(dir, config)) {
      for (Doc d : docs) {
        Document doc = new Document();
        doc.add(new StringField("id", d.id(), Field.Store.YES));
        if (flat) {
          String full = d.title().isBlank() ? d.text() : d.text().isBlank() ? d.title() : d.title() + "\n" + d.text();
          doc.add(new TextField("text", full, Field.Store.NO));
        } else {
          doc.add(new TextField("title", d.title(), Field.Store.NO));
          doc.add(new TextField("text", d.text(), Field.Store.NO));
        }
        w.addDocument(doc);
      }
      w.forceMerge(1);
    }
    IndexSearcher searcher = new IndexSearcher(DirectoryReader.open(dir));
    searcher.setSimilarity(sim);
    return searcher;
  }

  static Query match(String field, String text) {
    return new QueryBuilder(new EnglishAnalyzer()).createBooleanQuery(field, text, BooleanClause.Occur.SHOULD);
  }

  static ObjectNode tree(Explanation e, boolean solr) {
    ObjectNode n = JSON.createObjectNode();
    if (solr) n.put("match", e.isMatch());
    Number v = e.getValue();
    if (v instanceof Float f) n.put("value", f);
    else if (v instanceof Double d) n.put("value", d);
    else n.put("value", v.longValue());
    n.put("description", e.getDescription());
    ArrayNode details = n.putArray("details");
    for (Explanation d : e.getDetails()) details.add(tree(d, solr));
    return n;
  }

  static String id(IndexSearcher s, int doc) throws Exception {
    return s.storedFields().document(doc).get("id");
  }

  static List<Doc> docs;

  static String source(String id) {
    for (Doc d : docs) if (d.id().equals(id)) return d.title() + "\n" + d.text();
    return "";
  }

  /** An Elasticsearch 8 `_search` response with `"explain": true`. */
  static ObjectNode elasticsearch(IndexSearcher s, Query q, String index) throws Exception {
    TopDocs top = s.search(q, 10);
    ObjectNode r = JSON.createObjectNode();
    r.put("took", 2);
    r.put("timed_out", false);
    ObjectNode shards = r.putObject("_shards");
    shards.put("total", 1).put("successful", 1).put("skipped", 0).put("failed", 0);
    ObjectNode hits = r.putObject("hits");
    hits.putObject("total").put("value", top.totalHits.value).put("relation", "eq");
    hits.put("max_score", top.scoreDocs.length == 0 ? 0f : top.scoreDocs[0].score);
    ArrayNode list = hits.putArray("hits");
    for (ScoreDoc sd : top.scoreDocs) {
      ObjectNode h = list.addObject();
      String id = id(s, sd.doc);
      h.put("_shard", "[" + index + "][0]");
      h.put("_node", "recorded-by-lucene-9.9.1");
      h.put("_index", index);
      h.put("_id", id);
      h.put("_score", sd.score);
      h.putObject("_source").put("text", source(id));
      h.set("_explanation", tree(s.explain(q, sd.doc), false));
    }
    return r;
  }

  /** A Solr 9 response with debugQuery (structured explain, or Explanation.toString()). */
  static ObjectNode solr(IndexSearcher s, Query q, String qParams, boolean structured) throws Exception {
    TopDocs top = s.search(q, 10);
    ObjectNode r = JSON.createObjectNode();
    ObjectNode header = r.putObject("responseHeader");
    header.put("status", 0).put("QTime", 3);
    ObjectNode params = header.putObject("params");
    for (String kv : qParams.split("&")) {
      String[] p = kv.split("=", 2);
      params.put(p[0], p[1]);
    }
    params.put("fl", "id,score").put("debugQuery", "true").put("wt", "json");
    if (structured) params.put("debug.explain.structured", "true");
    ObjectNode response = r.putObject("response");
    response.put("numFound", top.totalHits.value).put("start", 0);
    response.put("maxScore", top.scoreDocs.length == 0 ? 0f : top.scoreDocs[0].score);
    response.put("numFoundExact", true);
    ArrayNode list = response.putArray("docs");
    ObjectNode debug = JSON.createObjectNode();
    debug.put("rawquerystring", params.get("q").asText());
    debug.put("querystring", params.get("q").asText());
    debug.put("parsedquery", q.toString());
    ObjectNode explain = debug.putObject("explain");
    for (ScoreDoc sd : top.scoreDocs) {
      String id = id(s, sd.doc);
      list.addObject().put("id", id).put("score", sd.score);
      Explanation e = s.explain(q, sd.doc);
      if (structured) explain.set(id, tree(e, true));
      else explain.put(id, "\n" + e.toString());
    }
    r.set("debug", debug);
    return r;
  }

  /**
   * An Elasticsearch 8.16 RRF retriever's response over two standard retrievers, each hit's
   * explanation Elasticsearch's RRF wording (as in its RRFRankDoc) around the real Lucene
   * explanation of each query. Only documents both queries return are kept, so every part is a
   * "matching query" part.
   */
  static ObjectNode rrf(IndexSearcher s, Query q0, Query q1, String index) throws Exception {
    TopDocs a = s.search(q0, 10), b = s.search(q1, 10);
    record Hit(int doc, int r0, int r1, double score) {}
    List<Hit> both = new ArrayList<>();
    for (int i = 0; i < a.scoreDocs.length; i++) {
      for (int j = 0; j < b.scoreDocs.length; j++) {
        if (a.scoreDocs[i].doc == b.scoreDocs[j].doc) {
          both.add(new Hit(a.scoreDocs[i].doc, i + 1, j + 1, 1.0 / (i + 1 + 60) + 1.0 / (j + 1 + 60)));
        }
      }
    }
    both.sort((x, y) -> Double.compare(y.score(), x.score()));
    ObjectNode r = JSON.createObjectNode();
    r.put("took", 3);
    r.put("timed_out", false);
    ObjectNode shards = r.putObject("_shards");
    shards.put("total", 1).put("successful", 1).put("skipped", 0).put("failed", 0);
    ObjectNode hits = r.putObject("hits");
    hits.putObject("total").put("value", both.size()).put("relation", "eq");
    hits.put("max_score", both.isEmpty() ? 0f : (float) both.get(0).score());
    ArrayNode list = hits.putArray("hits");
    int rank = 0;
    for (Hit h : both) {
      ObjectNode o = list.addObject();
      o.put("_index", index);
      o.put("_id", id(s, h.doc()));
      o.put("_score", (float) h.score());
      o.put("_rank", ++rank);
      ObjectNode e = JSON.createObjectNode();
      e.put("value", (float) h.score());
      e.put("description", "rrf score: [" + (float) h.score() + "] computed for initial ranks [" + h.r0() + ", " + h.r1()
          + "] with rankConstant: [60] as sum of [1 / (rank + rankConstant)] for each query");
      ArrayNode parts = e.putArray("details");
      int[] ranks = {h.r0(), h.r1()};
      Query[] queries = {q0, q1};
      for (int i = 0; i < 2; i++) {
        ObjectNode part = parts.addObject();
        part.put("value", (float) ranks[i]);
        part.put("description", "rrf score: [" + (float) (1.0 / (ranks[i] + 60)) + "], for rank [" + ranks[i]
            + "] in query at index [" + i + "] computed as [1 / (" + ranks[i] + " + 60)], for matching query with score");
        part.putArray("details").add(tree(s.explain(queries[i], h.doc()), false));
      }
      o.set("_explanation", e);
    }
    return r;
  }

  static void write(Path out, String name, JsonNode body) throws Exception {
    Files.writeString(out.resolve(name), JSON.writeValueAsString(body) + "\n", StandardCharsets.UTF_8);
  }

  public static void main(String[] args) throws Exception {
    docs = read(Path.of(args[0]));
    Path out = Path.of(args[1]);
    Files.createDirectories(out);
    IndexSearcher es = index(docs, false, new PerFieldSimilarity());
    IndexSearcher esFlat = index(docs, true, new PerFieldSimilarity());
    IndexSearcher solr = index(docs, false, new SchemaSimilarity());
    IndexSearcher solrFlat = index(docs, true, new SchemaSimilarity());

    // multi_match best_fields over title and text; and with a tie breaker of 0.3.
    Query best = new DisjunctionMaxQuery(List.of(match("text", QUESTION), match("title", QUESTION)), 0f);
    write(out, "elasticsearch-8-multi-match.json", elasticsearch(es, best, "acme"));
    Query tie = new DisjunctionMaxQuery(List.of(match("text", QUESTION), match("title", QUESTION)), 0.3f);
    write(out, "elasticsearch-8-multi-match-tie.json", elasticsearch(es, tie, "acme"));
    // match on the flat field: RankLens's own BM25 reads the same inputs.
    write(out, "elasticsearch-8-match.json", elasticsearch(esFlat, match("text", QUESTION), "acme-flat"));
    // bool: the match required, the phrase "cached results" boosted 2 as a should clause.
    Query phrase = new BoostQuery(new QueryBuilder(new EnglishAnalyzer()).createPhraseQuery("text", "cached results"), 2f);
    Query bool = new BooleanQuery.Builder()
        .add(match("text", QUESTION), BooleanClause.Occur.MUST)
        .add(phrase, BooleanClause.Occur.SHOULD)
        .build();
    write(out, "elasticsearch-8-bool-phrase.json", elasticsearch(esFlat, bool, "acme-flat"));
    // A question with a repeated word: match makes one clause per occurrence.
    String repeated = "Sync stopped: why does sync stop syncing?";
    write(out, "elasticsearch-8-repeated-word.json", elasticsearch(esFlat, match("text", repeated), "acme-flat"));
    // The _explain API for the first hit of the multi_match.
    TopDocs top = es.search(best, 1);
    ObjectNode explain = JSON.createObjectNode();
    explain.put("_index", "acme");
    explain.put("_id", id(es, top.scoreDocs[0].doc));
    explain.put("matched", true);
    explain.set("explanation", tree(es.explain(best, top.scoreDocs[0].doc), false));
    write(out, "elasticsearch-8-explain.json", explain);

    // Solr edismax over title and text: +(DisjunctionMaxQuery per word).
    BooleanQuery.Builder words = new BooleanQuery.Builder();
    for (String word : QUESTION.split("\\s+")) {
      Query t = match("text", word);
      Query ti = match("title", word);
      if (t == null && ti == null) continue;
      List<Query> fields = new ArrayList<>();
      if (t != null) fields.add(t);
      if (ti != null) fields.add(ti);
      words.add(new DisjunctionMaxQuery(fields, 0f), BooleanClause.Occur.SHOULD);
    }
    Query edismax = new BooleanQuery.Builder().add(words.build(), BooleanClause.Occur.MUST).build();
    String edismaxParams = "q=" + QUESTION + "&defType=edismax&qf=title text";
    write(out, "solr-9-edismax-structured.json", solr(solr, edismax, edismaxParams, true));
    write(out, "solr-9-edismax-text.json", solr(solr, edismax, edismaxParams, false));
    String flatParams = "q=" + QUESTION + "&defType=lucene&df=text&q.op=OR";
    write(out, "solr-9-match-structured.json", solr(solrFlat, match("text", QUESTION), flatParams, true));
    write(out, "solr-9-match-text.json", solr(solrFlat, match("text", QUESTION), flatParams, false));

    // Lengths Lucene's one-byte norm cannot keep exactly: each passage's text three times over
    // (45 to 72 terms), so the explanation says `dl, length of field (approximate)`.
    List<Doc> sample = docs;
    List<Doc> longer = new ArrayList<>();
    for (Doc d : sample) longer.add(new Doc(d.id(), d.title(), d.text() + " " + d.text() + " " + d.text()));
    docs = longer;
    IndexSearcher esLong = index(longer, true, new PerFieldSimilarity());
    write(out, "elasticsearch-8-approximate-length.json", elasticsearch(esLong, match("text", QUESTION), "acme-long"));
    docs = sample;
    // combined_fields over title and text (Lucene's CombinedFieldQuery, BM25F: one BM25 over the
    // fields' summed frequencies and lengths), one clause per analysed word. It asks for Lucene's
    // own BM25Similarity (Elasticsearch's combined_fields refuses any other).
    IndexSearcher plain = index(docs, false, new BM25Similarity(1.2f, 0.75f));
    BooleanQuery.Builder combined = new BooleanQuery.Builder();
    for (String term : new EnglishAnalyzerTerms().terms(QUESTION)) {
      combined.add(new CombinedFieldQuery.Builder().addField("title").addField("text").addTerm(new BytesRef(term)).build(),
          BooleanClause.Occur.SHOULD);
    }
    write(out, "elasticsearch-8-combined-fields.json", elasticsearch(plain, combined.build(), "acme"));
    // A synonym (an index-time or query-time synonym filter makes a SynonymQuery): `expire`
    // and `end` as one term, beside the question's other words.
    BooleanQuery.Builder synonyms = new BooleanQuery.Builder();
    for (String term : new EnglishAnalyzerTerms().terms(QUESTION)) {
      if (term.equals("expir")) {
        synonyms.add(new SynonymQuery.Builder("text").addTerm(new Term("text", "expir")).addTerm(new Term("text", "end")).build(),
            BooleanClause.Occur.SHOULD);
      } else {
        synonyms.add(new org.apache.lucene.search.TermQuery(new Term("text", term)), BooleanClause.Occur.SHOULD);
      }
    }
    write(out, "elasticsearch-8-synonym.json", elasticsearch(esFlat, synonyms.build(), "acme-flat"));
    // RRF over two matches on the flat field; a passage holding one word of a question has a
    // `sum of:` with one child under its RRF part.
    write(out, "elasticsearch-8-rrf-recorded.json",
        rrf(esFlat, match("text", QUESTION), match("text", "saved results kept in the cache"), "acme-flat"));
  }

  /** The english analyzer's terms of a text, in order. */
  static final class EnglishAnalyzerTerms {
    List<String> terms(String text) throws Exception {
      List<String> out = new ArrayList<>();
      try (EnglishAnalyzer a = new EnglishAnalyzer();
          org.apache.lucene.analysis.TokenStream ts = a.tokenStream("text", text)) {
        org.apache.lucene.analysis.tokenattributes.CharTermAttribute t =
            ts.addAttribute(org.apache.lucene.analysis.tokenattributes.CharTermAttribute.class);
        ts.reset();
        while (ts.incrementToken()) out.add(t.toString());
        ts.end();
      }
      return out;
    }
  }
}
