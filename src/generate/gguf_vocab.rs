//! The tokenizer a GGUF file describes, rebuilt as a `tokenizers` tokenizer: a GGUF model carries
//! its vocabulary, merges, token types and pre-tokenizer name in its metadata, so no
//! `tokenizer.json` is needed beside it.
//!
//! Byte-level BPE (`tokenizer.ggml.model = "gpt2"`) only, with the pre-tokenizers llama.cpp names
//! `smollm` / `starcoder` (every digit alone, then GPT-2's split), `qwen2` (Qwen's split) and
//! `gpt2` / `default` (GPT-2's split). Control and user-defined tokens (`<|im_start|>`) become
//! special tokens, matched whole in a prompt and dropped when decoding.

use std::collections::HashMap;

use candle_core::quantized::gguf_file::{Content, Value};
use serde_json::json;
use tokenizers::Tokenizer;

use crate::{Error, Result};

/// Token types of `tokenizer.ggml.token_type` (llama.cpp's `llama_token_type`).
const CONTROL: i32 = 3;
const USER_DEFINED: i32 = 4;

/// Qwen2's pre-tokenizer split (llama.cpp `LLAMA_VOCAB_PRE_TYPE_QWEN2`).
const QWEN2_SPLIT: &str =
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// The tokenizer of a GGUF file, with the ids of its special tokens by text.
pub struct GgufVocab {
    /// The tokenizer.
    pub tokenizer: Tokenizer,
    /// Special tokens (control and user-defined) by text.
    pub special: HashMap<String, u32>,
    /// `tokenizer.ggml.eos_token_id`, when given.
    pub eos: Option<u32>,
}

fn strings(content: &Content, key: &str, what: &str) -> Result<Vec<String>> {
    let v = content.metadata.get(key).ok_or_else(|| Error::invalid(what, format!("no `{key}` in the metadata")))?;
    let items = v.to_vec().map_err(|_| Error::invalid(what, format!("`{key}` is not an array")))?;
    items
        .iter()
        .enumerate()
        .map(|(i, s)| s.to_string().cloned().map_err(|_| Error::invalid(what, format!("`{key}`[{i}] is not a string"))))
        .collect()
}

fn int(v: &Value) -> Option<i64> {
    match v {
        Value::I32(x) => Some(i64::from(*x)),
        Value::U32(x) => Some(i64::from(*x)),
        Value::I64(x) => Some(*x),
        Value::U64(x) => i64::try_from(*x).ok(),
        Value::I16(x) => Some(i64::from(*x)),
        Value::U16(x) => Some(i64::from(*x)),
        Value::I8(x) => Some(i64::from(*x)),
        Value::U8(x) => Some(i64::from(*x)),
        _ => None,
    }
}

/// Build the tokenizer of `content` (a GGUF file's header); `what` names the file in errors.
pub fn from_gguf(content: &Content, what: &str) -> Result<GgufVocab> {
    let md = &content.metadata;
    let model = md.get("tokenizer.ggml.model").and_then(|v| v.to_string().ok()).map(String::as_str);
    if model != Some("gpt2") {
        return Err(Error::invalid(
            what,
            format!(
                "tokenizer {:?}: RankLens reads byte-level BPE tokenizers (`gpt2`) from GGUF files",
                model.unwrap_or("(none)")
            ),
        ));
    }
    let tokens = strings(content, "tokenizer.ggml.tokens", what)?;
    let merges = strings(content, "tokenizer.ggml.merges", what)?;
    let types: Vec<i64> = match md.get("tokenizer.ggml.token_type").and_then(|v| v.to_vec().ok()) {
        Some(t) => t.iter().map(|v| int(v).unwrap_or(1)).collect(),
        None => vec![1; tokens.len()],
    };
    let pre = md.get("tokenizer.ggml.pre").and_then(|v| v.to_string().ok()).map(String::as_str).unwrap_or("default");
    let byte_level = json!({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true});
    let pre_tokenizer = match pre {
        "smollm" | "starcoder" | "refact" | "codeshell" => json!({"type": "Sequence", "pretokenizers": [
            {"type": "Digits", "individual_digits": true}, byte_level]}),
        "qwen2" => json!({"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": QWEN2_SPLIT}, "behavior": "Isolated", "invert": false},
            {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}]}),
        "gpt2" | "default" => byte_level,
        other => {
            return Err(Error::invalid(
                what,
                format!("pre-tokenizer {other:?} is not one RankLens knows (smollm, starcoder, qwen2, gpt2)"),
            ));
        }
    };
    let mut vocab = serde_json::Map::with_capacity(tokens.len());
    let mut special = HashMap::new();
    let mut added = Vec::new();
    for (id, token) in tokens.iter().enumerate() {
        let id = u32::try_from(id).map_err(|_| Error::invalid(what, "more than 2^32 tokens"))?;
        vocab.entry(token.clone()).or_insert(json!(id));
        let kind = types.get(id as usize).copied().unwrap_or(1);
        if kind == i64::from(CONTROL) || kind == i64::from(USER_DEFINED) {
            special.insert(token.clone(), id);
            added.push(json!({"id": id, "content": token, "single_word": false, "lstrip": false, "rstrip": false,
                              "normalized": false, "special": true}));
        }
    }
    let spec = json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": added,
        "normalizer": null,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": null,
        "decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
        "model": {"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
                  "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
                  "vocab": vocab, "merges": merges},
    });
    let tokenizer = Tokenizer::from_bytes(spec.to_string().as_bytes())
        .map_err(|e| Error::invalid(what, format!("the tokenizer in its metadata cannot be built: {e}")))?;
    let eos = md.get("tokenizer.ggml.eos_token_id").and_then(int).and_then(|x| u32::try_from(x).ok());
    Ok(GgufVocab { tokenizer, special, eos })
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::quantized::gguf_file;
    use std::io::Cursor;

    /// A GGUF header holding a tokenizer's metadata and no tensors.
    fn header(tokens: &[&str], merges: &[&str], types: &[i32], pre: &str) -> Content {
        let strings = |v: &[&str]| Value::Array(v.iter().map(|s| Value::String(s.to_string())).collect());
        let md = [
            ("general.architecture", Value::String("llama".into())),
            ("tokenizer.ggml.model", Value::String("gpt2".into())),
            ("tokenizer.ggml.pre", Value::String(pre.into())),
            ("tokenizer.ggml.tokens", strings(tokens)),
            ("tokenizer.ggml.merges", strings(merges)),
            ("tokenizer.ggml.token_type", Value::Array(types.iter().map(|t| Value::I32(*t)).collect())),
            ("tokenizer.ggml.eos_token_id", Value::U32(1)),
        ];
        let refs: Vec<(&str, &Value)> = md.iter().map(|(k, v)| (*k, v)).collect();
        let mut buf = Cursor::new(Vec::new());
        gguf_file::write(&mut buf, &refs, &[]).unwrap();
        buf.set_position(0);
        Content::read(&mut buf).unwrap()
    }

    #[test]
    fn a_small_vocabulary_tokenizes_by_its_merges() {
        // Byte-level: "Ġ" is the space. Merges: h+i, then Ġ+hi.
        let tokens = ["h", "i", "Ġ", "hi", "Ġhi", "<|im_end|>", "2", "0"];
        let c = header(&tokens, &["h i", "Ġ hi"], &[1, 1, 1, 1, 1, 3, 1, 1], "smollm");
        let v = from_gguf(&c, "t.gguf").unwrap();
        let ids = v.tokenizer.encode("hi hi<|im_end|>20", false).unwrap().get_ids().to_vec();
        assert_eq!(ids, [3, 4, 5, 6, 7], "merged words, the control token whole, each digit alone");
        assert_eq!(v.special.get("<|im_end|>"), Some(&5));
        assert_eq!(v.eos, Some(1));
        assert_eq!(v.tokenizer.decode(&[3, 4, 5], true).unwrap(), "hi hi");
        let e = from_gguf(&header(&tokens, &[], &[], "llama-bpe"), "t.gguf").err().unwrap();
        assert!(e.report().contains("t.gguf") && e.report().contains("llama-bpe"), "{}", e.report());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Any vocabulary, merges, token types and pre-tokenizer name: a tokenizer or an error
        /// naming the file, never a panic; a tokenizer that is built encodes and decodes any text.
        #[test]
        fn any_vocabulary_builds_or_is_refused(
            tokens in proptest::collection::vec("\\PC{1,4}", 0..20),
            merges in proptest::collection::vec("\\PC{0,3}( \\PC{0,3})?", 0..10),
            types in proptest::collection::vec(-1i32..6, 0..20),
            pre in proptest::prop_oneof!["smollm", "qwen2", "gpt2", "default", "\\PC{0,6}"],
            text in "\\PC{0,30}",
        ) {
            let t: Vec<&str> = tokens.iter().map(String::as_str).collect();
            let m: Vec<&str> = merges.iter().map(String::as_str).collect();
            match from_gguf(&header(&t, &m, &types, &pre), "t.gguf") {
                Ok(v) => {
                    if let Ok(enc) = v.tokenizer.encode(text.as_str(), false) {
                        let _ = v.tokenizer.decode(enc.get_ids(), true);
                    }
                }
                Err(e) => proptest::prop_assert!(e.report().contains("t.gguf"), "{}", e.report()),
            }
        }

        /// A damaged GGUF file (bytes cut or changed) is refused with the file named, never a panic.
        #[test]
        fn a_damaged_model_file_is_refused(cut in 0usize..2000, flips in proptest::collection::vec((0usize..2000, 0u8..=255), 0..4)) {
            let c = header(&["a", "b", "ab", "<|im_start|>", "<|im_end|>"], &["a b"], &[1, 1, 1, 3, 3], "smollm");
            let md: Vec<(&str, &Value)> = c.metadata.iter().map(|(k, v)| (k.as_str(), v)).collect();
            let mut buf = Cursor::new(Vec::new());
            gguf_file::write(&mut buf, &md, &[]).unwrap();
            let mut bytes = buf.into_inner();
            bytes.truncate(cut.min(bytes.len()));
            for (at, b) in flips {
                if let Some(x) = bytes.get_mut(at) {
                    *x = b;
                }
            }
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("m.gguf");
            std::fs::write(&path, &bytes).unwrap();
            match crate::generate::EmbeddedLlm::load(&path, "m", None, &crate::progress::NoProgress) {
                Ok(_) => proptest::prop_assert!(false, "a model with no weights loaded"),
                Err(e) => proptest::prop_assert!(e.report().contains("m.gguf"), "{}", e.report()),
            }
        }
    }
}
