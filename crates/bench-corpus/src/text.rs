//! The text of the synthetic corpus: a seeded SplitMix64 per file, a vocabulary with Zipf-like
//! word frequencies (function words, technical words, a long tail of synthetic rare words, a
//! little CJK), and the prose fragments docs are made of (sentences, paragraphs, lists, tables,
//! code blocks). Only std; deterministic on every machine.

use std::fmt::Write as _;

use super::{LANGS, VERBS, title_case};

// ---------------------------------------------------------------------------------------------
// Randomness: SplitMix64, seeded per file from (corpus seed, file kind, index), so every file is
// generated independently of the others and of the thread that writes it.

pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(super) fn for_item(seed: u64, kind: u64, index: usize) -> Rng {
        let mut r = Rng(seed
            ^ kind.wrapping_mul(0xa076_1d64_78bd_642f)
            ^ (index as u64).wrapping_mul(0xe703_7ed1_a0b4_28db));
        r.next();
        r
    }

    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0); the modulo bias is irrelevant here.
    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub(super) fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below((hi - lo + 1) as u64) as usize
    }

    /// Uniform in [0, 1).
    pub(super) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal by Irwin–Hall (sum of 12 uniforms − 6): plain arithmetic, so it is
    /// bit-identical everywhere, and the tails are bounded (±6σ), which suits file sizes.
    pub(super) fn normal(&mut self) -> f64 {
        (0..12).map(|_| self.unit()).sum::<f64>() - 6.0
    }

    pub(super) fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

// ---------------------------------------------------------------------------------------------
// Vocabulary with Zipf-like frequencies.

/// Function words, the most frequent ranks.
#[rustfmt::skip]
pub(super) const COMMON: &[&str] = &[
    "the", "to", "of", "and", "a", "in", "is", "for", "that", "it", "with", "as", "be", "this", "by", "are",
    "or", "from", "can", "you", "when", "an", "each", "which", "its", "at", "not", "if", "all", "your",
    "one", "into", "only", "then", "than", "more", "so", "use", "but", "we", "also", "every", "any",
    "before", "after", "other", "same", "how", "where", "them", "their", "these", "there", "been", "has",
    "have", "will", "does",
];

/// Technical words, the middle ranks; also the source of titles, tags and queries.
#[rustfmt::skip]
pub(super) const TECH: &[&str] = &[
    "cache", "build", "server", "client", "request", "response", "config", "template", "render", "deploy",
    "index", "search", "query", "token", "session", "schema", "migration", "database", "table", "column",
    "record", "stream", "buffer", "queue", "worker", "thread", "process", "signal", "socket", "port",
    "route", "handler", "middleware", "plugin", "module", "package", "version", "release", "branch",
    "commit", "merge", "review", "test", "fixture", "snapshot", "benchmark", "profile", "trace", "metric",
    "log", "alert", "dashboard", "cluster", "node", "replica", "shard", "partition", "backup", "restore",
    "archive", "upload", "download", "storage", "bucket", "object", "file", "directory", "path", "link",
    "anchor", "heading", "section", "outline", "page", "layout", "theme", "style", "asset", "image", "font",
    "script", "function", "method", "variable", "parameter", "argument", "option", "flag", "command",
    "shell", "terminal", "container", "image", "volume", "network", "proxy", "gateway", "certificate",
    "secret", "key", "permission", "role", "policy", "audit", "compliance", "encryption", "signature",
    "hash", "digest", "checksum", "manifest", "catalog", "registry", "mirror", "artifact", "pipeline",
    "workflow", "job", "stage", "step", "trigger", "schedule", "cron", "timeout", "retry", "backoff",
    "limit", "quota", "throttle", "latency", "throughput", "memory", "disk", "cpu", "kernel", "driver",
    "device", "firmware", "sensor", "telemetry", "event", "webhook", "callback", "promise", "future",
    "async", "await", "channel", "mutex", "lock", "transaction", "commit", "rollback", "snapshot",
    "replication", "consensus", "leader", "follower", "quorum", "vote", "parser", "lexer", "compiler",
    "linker", "optimizer", "interpreter", "runtime", "bytecode", "grammar", "syntax", "frontmatter",
    "markdown", "taxonomy", "shortcode", "partial", "menu", "sitemap", "feed", "locale", "translation",
    "pagination", "cursor", "offset", "filter", "sort", "rank", "score", "snippet", "highlight",
    "suggestion", "skill", "agent", "prompt", "context", "budget", "tool", "resource", "capability",
    "extension", "protocol", "validation", "diagnostic", "warning", "error", "exception", "panic",
    "recovery", "fallback", "default", "override", "dependency", "feature", "target", "toolchain", "crate",
    "library", "binary", "header", "payload", "encoding", "unicode", "utf8", "newline", "whitespace",
    "indent", "format", "lint", "rule", "check", "report", "upgrade", "downgrade", "compatibility",
    "deprecation", "changelog", "roadmap", "milestone", "issue", "label", "owner", "account", "user",
    "group", "team", "organization", "project", "workspace", "repository", "environment", "staging",
    "production", "preview", "sandbox", "tenant", "region", "zone", "endpoint", "domain", "hostname",
    "address",
];

/// Number of synthetic rare words in the long tail.
pub(super) const SYNTHETIC_WORDS: usize = 4_000;

#[rustfmt::skip]
pub(super) const SYLLABLES: &[&str] = &[
    "ka", "lo", "ren", "tis", "mar", "vel", "qu", "dor", "xen", "pha", "bri", "sto", "lum", "zar", "ne",
    "ko", "thi", "gra", "vo", "sel", "mir", "and", "ost", "ul", "cre", "fen", "jas", "wyn", "hel", "dru",
    "pex", "oin",
];

/// The `i`-th synthetic word: 3 syllables picked by the digits of `i` in base 32, plus a 4th for
/// the upper half, so every word is distinct and pronounceable-ish (`karentis`, `zarloqu`...).
pub(super) fn synthetic_word(i: usize) -> String {
    let n = SYLLABLES.len();
    let mut w = String::new();
    w.push_str(SYLLABLES[i % n]);
    w.push_str(SYLLABLES[(i / n) % n]);
    w.push_str(SYLLABLES[(i * 7 + 3) % n]);
    if i >= n * n {
        w.push_str(SYLLABLES[(i / (n * n)) % n]);
    }
    w
}

/// A few CJK words so CJK tokenization is exercised (as on real multilingual docs sites).
#[rustfmt::skip]
pub(super) const CJK: &[&str] = &[
    "設定", "キャッシュ", "サーバー", "検索", "索引", "文書", "技能", "配置", "部署", "缓存", "服务器", "搜索", "模板", "渲染", "构建", "版本",
    "发布", "数据库", "查询", "链接",
];

pub(super) struct Vocab {
    words: Vec<String>,
    /// 2^18 slots; word `r` fills about `p(r)·2^18` of them, so one lookup draws a Zipf word.
    table: Vec<u16>,
}

pub(super) const TABLE_BITS: u32 = 18;

impl Vocab {
    pub(super) fn new() -> Vocab {
        let mut words: Vec<String> = COMMON.iter().map(|s| s.to_string()).collect();
        for w in TECH {
            if !words.iter().any(|x| x == w) {
                words.push(w.to_string());
            }
        }
        words.extend((0..SYNTHETIC_WORDS).map(synthetic_word));
        // Zipf–Mandelbrot weights 1/(rank + 2.7); every word keeps at least one slot.
        let weights: Vec<f64> = (0..words.len()).map(|r| 1.0 / (r as f64 + 2.7)).collect();
        let total: f64 = weights.iter().sum();
        let slots = 1usize << TABLE_BITS;
        let mut table = Vec::with_capacity(slots);
        let mut acc = 0.0;
        for (r, w) in weights.iter().enumerate() {
            acc += w;
            let end = (((acc / total) * slots as f64) as usize).clamp(table.len() + 1, slots);
            table.resize(end, r as u16);
        }
        table.resize(slots, (words.len() - 1) as u16);
        Vocab { words, table }
    }

    pub(super) fn word(&self, rng: &mut Rng) -> &str {
        let slot = (rng.next() >> (64 - TABLE_BITS)) as usize;
        &self.words[self.table[slot] as usize]
    }
}

// ---------------------------------------------------------------------------------------------
// Prose fragments.

/// One sentence of `lo..=hi` words, capitalised, ending in a period (no trailing space).
pub(super) fn sentence(rng: &mut Rng, vocab: &Vocab, out: &mut String, lo: usize, hi: usize) {
    let n = rng.range(lo, hi);
    for k in 0..n {
        let w = vocab.word(rng);
        if k == 0 {
            out.push_str(&title_case(w));
        } else {
            out.push(' ');
            match rng.below(40) {
                0 => {
                    let _ = write!(out, "`{w}`");
                }
                1 => {
                    let _ = write!(out, "**{w}**");
                }
                _ => out.push_str(w),
            }
        }
    }
    out.push('.');
}

/// A paragraph of `lo..=hi` sentences, stopping early once `budget` bytes are written.
pub(super) fn paragraph(rng: &mut Rng, vocab: &Vocab, out: &mut String, lo: usize, hi: usize, budget: usize) {
    let start = out.len();
    for k in 0..rng.range(lo, hi) {
        if k > 0 {
            if out.len() - start >= budget {
                break;
            }
            out.push(' ');
        }
        sentence(rng, vocab, out, 6, 20);
    }
    out.push_str("\n\n");
}

pub(super) fn cjk_paragraph(rng: &mut Rng, out: &mut String) {
    for _ in 0..rng.range(8, 24) {
        out.push_str(rng.pick(CJK));
        if rng.below(5) == 0 {
            out.push('、');
        }
    }
    out.push_str("。\n\n");
}

pub(super) fn list(rng: &mut Rng, vocab: &Vocab, out: &mut String) {
    for _ in 0..rng.range(2, 6) {
        out.push_str("- ");
        sentence(rng, vocab, out, 4, 12);
        out.push('\n');
    }
    out.push('\n');
}

pub(super) fn table(rng: &mut Rng, vocab: &Vocab, out: &mut String) {
    out.push_str("| name | default | meaning |\n| --- | --- | --- |\n");
    for _ in 0..rng.range(2, 6) {
        let _ = write!(out, "| `{}_{}` | `{}` | ", rng.pick(TECH), rng.pick(TECH), rng.below(1000));
        sentence(rng, vocab, out, 4, 9);
        out.push_str(" |\n");
    }
    out.push('\n');
}

pub(super) fn code_block(rng: &mut Rng, vocab: &Vocab, out: &mut String) {
    let lang = rng.pick(LANGS);
    let _ = writeln!(out, "```{lang}");
    for _ in 0..rng.range(3, 12) {
        let indent = rng.below(3) as usize * 4;
        let _ = writeln!(
            out,
            "{:indent$}{}_{} = {}({}, {});",
            "",
            rng.pick(TECH),
            vocab.word(rng),
            rng.pick(VERBS),
            rng.pick(TECH),
            rng.below(4096)
        );
    }
    out.push_str("```\n\n");
}
