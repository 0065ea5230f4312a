//! The token index's compression step — each token vector's nearest of 2,048 centroids — row by
//! row (`Residual::nearest`, what every build did before) beside the tiled search
//! (`Residual::nearest_all`), on one core, in one run; the two must pick the same centroids.
//!
//!   cargo run --release --example codec_speed [-- TOKENS]      (default 20,000 token vectors)
//!
//! The vectors are 384-dimensional unit vectors around 64 directions (as MiniLM's token vectors
//! cluster), the codec learned from them as a build learns it (2,048 centroids, 2 bits).

use std::time::Instant;

use ranklens::index::tokens::Residual;
use ranklens::progress::NoProgress;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tokens: usize = std::env::args().nth(1).map(|a| a.parse()).transpose()?.unwrap_or(20_000);
    let dim = 384;
    let mut seed = 42u64;
    let mut next = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((seed >> 40) as f32 / (1u64 << 24) as f32) - 0.5
    };
    let unit = |v: Vec<f32>| {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
        v.into_iter().map(|x| x / n).collect::<Vec<f32>>()
    };
    let directions: Vec<Vec<f32>> = (0..64).map(|_| unit((0..dim).map(|_| next()).collect())).collect();
    let mut vector = |i: usize| unit(directions[i % 64].iter().map(|x| x + 0.08 * next()).collect());
    // A sample as large as a build's (2,048 centroids need 65,536 vectors), then the vectors to encode.
    let sample: Vec<f32> = (0..65_536).flat_map(&mut vector).collect();
    let t = Instant::now();
    let codec = Residual::train(&sample, dim, 2, &NoProgress)?;
    let train_secs = t.elapsed().as_secs_f64();
    let rows: Vec<f32> = (0..tokens).flat_map(&mut vector).collect();
    let t = Instant::now();
    let plain: Vec<usize> = rows.chunks_exact(dim).map(|v| codec.nearest(v)).collect();
    let plain_secs = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let tiled: Vec<usize> = rows.chunks(256 * dim).flat_map(|b| codec.nearest_all(b)).collect();
    let tiled_secs = t.elapsed().as_secs_f64();
    if plain != tiled {
        return Err("the tiled search chose other centroids".into());
    }
    println!("{} centroids × {dim} dimensions, {tokens} token vectors, one core", codec.k());
    println!("row by row  {:>8.3} s  {:>10.0} vectors/s", plain_secs, tokens as f64 / plain_secs);
    println!("tiled       {:>8.3} s  {:>10.0} vectors/s", tiled_secs, tokens as f64 / tiled_secs);
    println!("tiled is {:.2}x row by row; the same centroid for every vector", plain_secs / tiled_secs);
    println!("(learning the codec from 65,536 vectors on every core: {train_secs:.1} s)");
    Ok(())
}
