//! "Did you mean": the candidate closest to what was written, when it is close enough to be a
//! typo. Used for frontmatter keys.
//!
//! Pure: strings in, a borrowed candidate out.

/// The candidate closest to `word` by edit distance, if it is close enough to be a typo.
pub fn closest<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let word_lower = word.to_lowercase();
    candidates
        .into_iter()
        .map(|c| (edit_distance(&word_lower, &c.to_lowercase()), c))
        .filter(|&(d, c)| d <= (c.chars().count().max(3) / 3).max(1))
        .min()
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}
