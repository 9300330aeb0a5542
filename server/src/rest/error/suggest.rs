//! "Perhaps you meant ..." suggestions: a port of the fuzzy matching PostgREST
//! uses for its hints (Haskell package `fuzzyset` 0.2.x, `Data.FuzzySet`, which
//! PostgREST v12-v14 pins as `fuzzyset >= 0.2.4 && < 0.3`).
//!
//! The algorithm, as in `fuzzyset` 0.2.4 with its defaults (gram sizes 2..=3,
//! Levenshtein re-scoring on):
//!
//! * keys are lower-cased; an exact (case-insensitive) hit scores `1.0`;
//! * otherwise, for gram size 3 and then 2, every candidate sharing a gram
//!   with the query is scored by cosine similarity of gram-count vectors
//!   (grams of the lower-cased text stripped to alphanumerics, whitespace and
//!   `,`, wrapped in `-`), the best 50 are re-scored with the normalised
//!   Levenshtein similarity `1 - distance / max(len)` of the lower-cased
//!   texts, sorted best first, and those below `min_score` dropped; the first
//!   gram size giving any result wins.
//!
//! Ties keep the cosine order, and cosine ties keep insertion order counted
//! from the *end* of the candidate list (the Haskell set is built with a right
//! fold); this matches PostgREST's hash-map traversal for sets under 32 names.

use std::collections::{BTreeMap, HashMap};

/// Minimum score of `Data.FuzzySet.getOne`/`get` (used by PostgREST for
/// relationship hints and for overloaded-function parameter hints).
pub const DEFAULT_MIN_SCORE: f64 = 0.33;

/// Minimum score PostgREST v14 requires before it names another table or
/// function in a hint (`getFuzzyHint HintTable/HintProcedure`). v12/v13 used
/// [`DEFAULT_MIN_SCORE`] for those too.
pub const NAME_HINT_MIN_SCORE: f64 = 0.75;

/// PostgREST builds no table fuzzy index for a schema with this many tables
/// or more (`maxDbTablesForFuzzySearch`), so PGRST205 has no hint there.
pub const MAX_TABLES_FOR_FUZZY_SEARCH: usize = 500;

const GRAM_SIZES: [usize; 2] = [2, 3];
const LEVENSHTEIN_POOL: usize = 50;

/// The closest candidate to `name` (score at least [`DEFAULT_MIN_SCORE`], as
/// `Fuzzy.getOne`), or `None` when nothing is close.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    suggest_with_min_score(name, candidates, DEFAULT_MIN_SCORE)
}

/// Like [`suggest`] with an explicit minimum score (`Fuzzy.getOneWithMinScore`).
pub fn suggest_with_min_score<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    min_score: f64,
) -> Option<&'a str> {
    FuzzySet::new(candidates).get(name, min_score).first().map(|&(_, s)| s)
}

/// Every candidate scoring at least `min_score` against `name`, best first
/// (`Fuzzy.getWithMinScore`). An exact case-insensitive hit is the sole
/// result, with score `1.0`.
pub fn fuzzy_matches<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    min_score: f64,
) -> Vec<(f64, &'a str)> {
    FuzzySet::new(candidates).get(name, min_score)
}

struct Item {
    magnitude: f64,
    /// The lower-cased key of the entry.
    entry: String,
}

#[derive(Default)]
struct Grams {
    items: Vec<Item>,
    /// gram -> [(item index, count of the gram in that item)]
    dict: HashMap<String, Vec<(usize, usize)>>,
}

struct FuzzySet<'a> {
    /// lower-cased key -> original value (later inserts overwrite).
    exact: HashMap<String, &'a str>,
    by_size: [Grams; 2],
}

impl<'a> FuzzySet<'a> {
    fn new(candidates: impl IntoIterator<Item = &'a str>) -> Self {
        let list: Vec<&'a str> = candidates.into_iter().collect();
        let mut set = FuzzySet { exact: HashMap::new(), by_size: [Grams::default(), Grams::default()] };
        // `fromList = foldr (flip add) defaultSet`: the last element goes in first.
        for value in list.into_iter().rev() {
            set.add(value);
        }
        set
    }

    fn add(&mut self, value: &'a str) {
        let key = value.to_lowercase();
        // fuzzyset 0.2.4 tests `key `elem` exactSet`, i.e. against the stored
        // *values*, not the keys.
        if self.exact.values().any(|v| *v == key) {
            return;
        }
        for (slot, size) in GRAM_SIZES.iter().enumerate() {
            let grams = gram_vector(&key, *size);
            let table = &mut self.by_size[slot];
            let index = table.items.len();
            table.items.push(Item { magnitude: norm(grams.values().copied()), entry: key.clone() });
            for (gram, count) in grams {
                table.dict.entry(gram).or_default().push((index, count));
            }
        }
        self.exact.insert(key, value);
    }

    fn get(&self, name: &str, min_score: f64) -> Vec<(f64, &'a str)> {
        let key = name.to_lowercase();
        if let Some(value) = self.exact.get(&key) {
            return vec![(1.0, *value)];
        }
        for slot in (0..GRAM_SIZES.len()).rev() {
            let found = self.matches(&key, slot, min_score);
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    fn matches(&self, query: &str, slot: usize, min_score: f64) -> Vec<(f64, &'a str)> {
        let table = &self.by_size[slot];
        let query_vector = gram_vector(query, GRAM_SIZES[slot]);
        let query_magnitude = norm(query_vector.values().copied());
        let mut dots: BTreeMap<usize, usize> = BTreeMap::new();
        for (gram, count) in &query_vector {
            if let Some(infos) = table.dict.get(gram) {
                for (index, gram_count) in infos {
                    *dots.entry(*index).or_insert(0) += gram_count * count;
                }
            }
        }
        let mut scored: Vec<(f64, &str)> = dots
            .into_iter()
            .filter_map(|(index, dot)| {
                table
                    .items
                    .get(index)
                    .map(|item| (dot as f64 / (query_magnitude * item.magnitude), item.entry.as_str()))
            })
            .collect();
        sort_desc(&mut scored);
        let mut rescored: Vec<(f64, &str)> = scored
            .into_iter()
            .take(LEVENSHTEIN_POOL)
            .map(|(_, entry)| (levenshtein_similarity(query, entry), entry))
            .collect();
        sort_desc(&mut rescored);
        rescored
            .into_iter()
            .filter(|(score, _)| *score >= min_score)
            .map(|(score, entry)| (score, self.exact.get(entry).copied().unwrap_or("")))
            .collect()
    }
}

/// Stable sort, highest score first (`sortBy (comparing (Down . fst))`).
fn sort_desc(v: &mut [(f64, &str)]) {
    v.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
}

/// Counts of the `size`-grams of `-normalised(value)-`.
fn gram_vector(value: &str, size: usize) -> HashMap<String, usize> {
    let mut chars: Vec<char> = vec!['-'];
    chars.extend(value.to_lowercase().chars().filter(|c| c.is_alphanumeric() || c.is_whitespace() || *c == ','));
    chars.push('-');
    let mut grams = HashMap::new();
    if chars.len() >= size {
        for window in chars.windows(size) {
            *grams.entry(window.iter().collect::<String>()).or_insert(0) += 1;
        }
    }
    grams
}

fn norm(counts: impl Iterator<Item = usize>) -> f64 {
    (counts.map(|c| c * c).sum::<usize>() as f64).sqrt()
}

/// `text-metrics` `levenshteinNorm`: 1 for equal texts, else
/// `1 - distance / max(length)`, over characters.
fn levenshtein_similarity(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let distance = levenshtein(&a, &b);
    if distance == 0 {
        return 1.0;
    }
    let longest = a.len().max(b.len());
    (longest - distance) as f64 / longest as f64
}

fn levenshtein(a: &[char], b: &[char]) -> usize {
    if a.is_empty() {
        return b.len();
    }
    if b.is_empty() {
        return a.len();
    }
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levenshtein_basics() {
        assert_eq!(levenshtein_similarity("abc", "abc"), 1.0);
        assert_eq!(levenshtein_similarity("", ""), 1.0);
        assert_eq!(levenshtein_similarity("projectx", "projects"), 0.875);
        assert_eq!(levenshtein_similarity("projecxx", "projects"), 0.75);
        assert_eq!(levenshtein_similarity("projxxxx", "projects"), 0.5);
        assert_eq!(levenshtein(&['k', 'i', 't'], &['s', 'i', 't', 't', 'i', 'n', 'g']), 5);
    }

    #[test]
    fn grams_are_normalised_and_wrapped() {
        let g = gram_vector("A-b", 2);
        // "-ab-" -> "-a", "ab", "b-"
        assert_eq!(g.len(), 3);
        assert_eq!(g.get("ab"), Some(&1));
        assert!(gram_vector("", 3).is_empty());
    }
}
