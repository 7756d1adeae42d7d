//! The few JavaScript facts both JavaScript references (the ultragoal state CLI and DG-Anvil) make
//! part of their files, in one place: which characters `trim` removes, how `Number.prototype
//! .toString()` writes a number, and which object keys enumerate first. Pure functions.

use std::fmt::Write;

/// JavaScript's `WhiteSpace` and `LineTerminator`: what `trim` removes and `\s` matches (U+FEFF and
/// U+00A0 are in, U+0085 and U+180E are not).
pub fn is_space(c: u32) -> bool {
    matches!(
        c,
        0x09..=0x0D
            | 0x20
            | 0xA0
            | 0x1680
            | 0x2000..=0x200A
            | 0x2028
            | 0x2029
            | 0x202F
            | 0x205F
            | 0x3000
            | 0xFEFF
    )
}

/// `Number.prototype.toString()` (and `String(n)`, and a number in `JSON.stringify`): the
/// shortest digits that read back, in JavaScript's layout (`1e+21`, `1e-7`, `0.000001`, `-0` as
/// `0`).
pub fn number_to_string(n: f64) -> String {
    if n.is_nan() {
        return "NaN".into();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if n == 0.0 {
        return "0".into();
    }
    let sci = format!("{:e}", n.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let e: i64 = exponent.parse().unwrap_or(0);
    let k = digits.len() as i64;
    let point = e + 1; // n in the specification: the decimal point's place
    let mut out = String::new();
    if n < 0.0 {
        out.push('-');
    }
    if k <= point && point <= 21 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (point - k) as usize));
    } else if 0 < point && point <= 21 {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    } else if -6 < point && point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(
            out,
            "e{}{}",
            if point > 0 { "+" } else { "-" },
            (point - 1).abs()
        );
    }
    out
}

/// The array index a key spells (a canonical integer below 2³² − 1): such keys enumerate first in
/// a JavaScript object, ascending.
pub fn array_index(key: &[u8]) -> Option<u32> {
    if key.is_empty() || key.len() > 10 || !key.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if key.len() > 1 && key[0] == b'0' {
        return None;
    }
    let value: u64 = key.iter().fold(0, |n, b| n * 10 + u64::from(b - b'0'));
    u32::try_from(value).ok().filter(|&v| v <= 4_294_967_294)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_keys_as_javascript_has_them() {
        for (n, text) in [
            (1.0, "1"),
            (-0.0, "0"),
            (1e21, "1e+21"),
            (1e-7, "1e-7"),
            (0.000001, "0.000001"),
            (123.456, "123.456"),
            (-1.5e300, "-1.5e+300"),
        ] {
            assert_eq!(number_to_string(n), text);
        }
        assert_eq!(array_index(b"0"), Some(0));
        assert_eq!(array_index(b"4294967294"), Some(4_294_967_294));
        assert_eq!(array_index(b"4294967295"), None);
        assert_eq!(array_index(b"01"), None);
        assert!(is_space(0xFEFF) && !is_space(0x85));
    }
}
