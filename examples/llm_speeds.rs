//! Reading and writing speed of the embedded generator in each arithmetic (README figures).
use candle_core::{Device, Tensor, quantized::gguf_file};
use candle_transformers::models::quantized_llama::ModelWeights;
use ranklens::generate::{EmbeddedLlm, Generator, tasks};
use ranklens::progress::NoProgress;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let mut f = std::fs::File::open(&path).unwrap();
    let c = gguf_file::Content::read(&mut f).unwrap();
    let mut m = ModelWeights::from_gguf(c, &mut f, &Device::Cpu).unwrap();
    let prompt: Vec<u32> = (0..371).map(|i| 100 + i as u32).collect();
    let t = std::time::Instant::now();
    m.forward(&Tensor::new(prompt.as_slice(), &Device::Cpu).unwrap().unsqueeze(0).unwrap(), 0).unwrap();
    let p = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    for i in 0..32 {
        m.forward(&Tensor::new(&[200u32], &Device::Cpu).unwrap().unsqueeze(0).unwrap(), 371 + i).unwrap();
    }
    println!(
        "Q4_1 as stored: reading {:.1} ms/token, writing {:.1} ms/token",
        p * 1000.0 / 371.0,
        t.elapsed().as_secs_f64() * 1000.0 / 32.0
    );
    let llm = EmbeddedLlm::load(std::path::Path::new(&path), "SmolLM2-135M-Instruct", None, &NoProgress).unwrap();
    let text = "The error E140 appears when a file is too big for the server. ".repeat(20);
    for (name, max) in [("Q8_0 (write-heavy request)", 128usize), ("f32 copy (read-heavy request)", 1)] {
        let mut req = tasks::rag_request(&text);
        req.max_tokens = max;
        let _ = llm.chat(&req, &mut |_| {}, &NoProgress).unwrap(); // warm (loads the f32 copy)
        let g = llm.chat(&req, &mut |_| {}, &NoProgress).unwrap();
        println!("{name}: {} prompt tokens + {} written in {:.2} s", g.prompt_tokens, g.completion_tokens, g.seconds);
    }
    // A judgement: the default judge prompt over a SciFact-length passage (~250 words).
    let passage = "Alterations of the architecture of cerebral white matter in the developing human brain can affect cortical development. ".repeat(15);
    let judge = tasks::JudgePrompt::default();
    for round in 0..3 {
        let g =
            llm.chat(&judge.request("What affects cortical development?", &passage), &mut |_| {}, &NoProgress).unwrap();
        println!(
            "judgement {round}: {} prompt tokens + {} written in {:.2} s",
            g.prompt_tokens, g.completion_tokens, g.seconds
        );
    }
}
