//! The order of JavaScript's `a.localeCompare(b)` (ICU's root collation), which postgres-meta
//! sorts every name with: punctuation before digits before letters, letters compared without
//! case or accents first, then accents, then lower case before upper case. Written for the
//! characters of SQL identifiers; other characters fall back to their code point after letters.

use std::cmp::Ordering;

/// ICU's root order of the ASCII punctuation and symbols.
const PUNCTUATION: &str = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";

/// The base letter of a Latin letter with an accent, and whether it had one.
fn base(c: char) -> (char, bool) {
    let lower = c.to_lowercase().next().unwrap_or(c);
    let plain = match lower {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => 'a',
        'ç' => 'c',
        'è' | 'é' | 'ê' | 'ë' => 'e',
        'ì' | 'í' | 'î' | 'ï' => 'i',
        'ñ' => 'n',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' => 'o',
        'ù' | 'ú' | 'û' | 'ü' => 'u',
        'ý' | 'ÿ' => 'y',
        other => other,
    };
    (plain, plain != lower)
}

/// The primary weight of a character: its class, then its rank within it.
fn primary(c: char) -> (u8, u32) {
    if c.is_whitespace() {
        return (0, c as u32);
    }
    if let Some(i) = PUNCTUATION.find(c) {
        return (1, i as u32);
    }
    if c.is_ascii_digit() {
        return (3, c as u32);
    }
    if c.is_alphabetic() {
        return (4, base(c).0 as u32);
    }
    (2, c as u32)
}

/// `a.localeCompare(b)`.
pub fn locale_compare(a: &str, b: &str) -> Ordering {
    let primary_order = a.chars().map(primary).cmp(b.chars().map(primary));
    if primary_order != Ordering::Equal {
        return primary_order;
    }
    let accents = |s: &str| s.chars().map(|c| base(c).1).collect::<Vec<_>>();
    let accent_order = accents(a).cmp(&accents(b));
    if accent_order != Ordering::Equal {
        return accent_order;
    }
    // Lower case first.
    let case = |s: &str| s.chars().map(|c| c.is_uppercase()).collect::<Vec<_>>();
    case(a).cmp(&case(b)).then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn underscore_sorts_before_letters_and_digits() {
        assert_eq!(locale_compare("vehicle_images", "vehicles"), Ordering::Less);
        assert_eq!(locale_compare("a_b", "a1"), Ordering::Less);
        assert_eq!(locale_compare("a1", "ab"), Ordering::Less);
    }

    #[test]
    fn case_matters_only_after_the_letters() {
        assert_eq!(locale_compare("Display Name", "city"), Ordering::Greater);
        assert_eq!(locale_compare("b", "B"), Ordering::Less);
        assert_eq!(locale_compare("B", "c"), Ordering::Less);
    }

    #[test]
    fn accents_matter_only_after_the_letters() {
        assert_eq!(locale_compare("électrique", "essence"), Ordering::Less);
        assert_eq!(locale_compare("e", "é"), Ordering::Less);
    }
}
