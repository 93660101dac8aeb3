//! Kubernetes resource quantities (`"0.5"`, `"100m"`, `"256Mi"`, `"2Gi"`, `"1e3"`): parsing by the
//! Kubernetes grammar, exact arithmetic, and formatting.
//!
//! ```text
//! quantity ::= signedNumber suffix
//! suffix   ::= binarySI (Ki Mi Gi Ti Pi Ei) | decimalSI (n u m "" k M G T P E) | (e|E) signedNumber
//! number   ::= digits | digits.digits | digits. | .digits
//! ```
//!
//! Values are held exactly as a count of nano-units (10^-9); a finer fraction rounds up to the
//! next nano-unit, as Kubernetes does. Magnitudes above [`MAX_UNITS`] are refused, so no input
//! can overflow the arithmetic.

use std::cmp::Ordering;
use std::fmt;

const NANOS_PER_UNIT: i128 = 1_000_000_000;

/// The largest magnitude accepted, in whole units (2^63 - 1, the range of a Kubernetes int64).
pub const MAX_UNITS: i128 = i64::MAX as i128;

/// An exact quantity. Equality and order are by value: `1Gi` equals `1024Mi`.
#[derive(Clone, Copy, Debug)]
pub struct Amount {
    nanos: i128,
    /// Whether to print with binary suffixes; not part of the value.
    binary: bool,
}

impl PartialEq for Amount {
    fn eq(&self, other: &Self) -> bool {
        self.nanos == other.nanos
    }
}

impl Eq for Amount {}

impl PartialOrd for Amount {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Amount {
    fn cmp(&self, other: &Self) -> Ordering {
        self.nanos.cmp(&other.nanos)
    }
}

impl Amount {
    /// Zero.
    pub const ZERO: Amount = Amount { nanos: 0, binary: false };
    /// The largest amount, [`MAX_UNITS`].
    pub const MAX: Amount = Amount { nanos: MAX_UNITS * NANOS_PER_UNIT, binary: false };

    /// Parses a quantity string.
    ///
    /// # Errors
    /// A sentence saying why the text is not a quantity, for the caller to put in a problem.
    pub fn parse(text: &str) -> Result<Amount, String> {
        parse(text).map_err(|why| format!("`{text}` is not a Kubernetes quantity: {why}"))
    }

    /// The value in nano-units (10^-9).
    pub fn nanos(self) -> i128 {
        self.nanos
    }

    /// Whether the value is below zero.
    pub fn is_negative(self) -> bool {
        self.nanos < 0
    }

    /// The sum, or `None` past [`MAX_UNITS`].
    pub fn checked_add(self, other: Amount) -> Option<Amount> {
        bounded(self.nanos.checked_add(other.nanos)?, self.binary || other.binary)
    }

    /// The product by a whole number, or `None` past [`MAX_UNITS`].
    pub fn checked_mul(self, factor: i64) -> Option<Amount> {
        bounded(self.nanos.checked_mul(i128::from(factor))?, self.binary)
    }
}

/// The form the API server stores a quantity in (`0.5` is `500m`, `1.5Gi` is `1536Mi`, `1000m` is
/// `1`), so objects the core writes come back from the server as they were sent. Text in the
/// exponent form (`1e3`), which the server keeps in that form, and text that is not a quantity are
/// returned as they are.
pub fn canonical(text: &str) -> String {
    match Amount::parse(text) {
        Ok(amount) if !text.contains(['e', 'E']) => amount.to_string(),
        _ => text.to_owned(),
    }
}

/// A JSON float given for a quantity, as k8s-openapi's `Quantity` takes it: the text Rust's
/// `Display` writes (`0.5`, `1000000000000000000000` for 1e21), the shortest digits that read back
/// as `x`, with no exponent. The digits are serde_json's (the same shortest ones; where two are
/// equally near, Rust's the one away from zero), laid out here: Rust's own float printer and its
/// tables weigh 14 KB of the npm package's module.
pub fn float_text(x: f64) -> String {
    let Some(number) = serde_json::Number::from_f64(x) else {
        return (if x.is_nan() {
            "NaN"
        } else if x > 0.0 {
            "inf"
        } else {
            "-inf"
        })
        .to_owned();
    };
    let shortest = number.to_string();
    let (sign, body) = shortest.strip_prefix('-').map_or(("", shortest.as_str()), |b| ("-", b));
    let (mantissa, exponent) = body.split_once(['e', 'E']).unwrap_or((body, "0"));
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = [whole, fraction].concat();
    let significant = digits.trim_start_matches('0');
    // Where the decimal point falls among the significant digits.
    let mut point = i64::try_from(whole.len()).unwrap_or(0) + exponent
        - i64::try_from(digits.len() - significant.len()).unwrap_or(0);
    let mut significant = significant.trim_end_matches('0').to_owned();
    if let Some(up) = tie_away_from_zero(x, &significant, point) {
        point += i64::try_from(up.len()).unwrap_or(0) - i64::try_from(significant.len()).unwrap_or(0);
        significant = up.trim_end_matches('0').to_owned();
    }
    let width = i64::try_from(significant.len()).unwrap_or(0);
    let zeros = |n: i64| "0".repeat(usize::try_from(n).unwrap_or(0));
    if significant.is_empty() {
        format!("{sign}0")
    } else if point <= 0 {
        format!("{sign}0.{}{significant}", zeros(-point))
    } else if point >= width {
        format!("{sign}{significant}{}", zeros(point - width))
    } else {
        let (left, right) =
            significant.split_at_checked(usize::try_from(point).unwrap_or(0)).unwrap_or((&significant, ""));
        format!("{sign}{left}.{right}")
    }
}

/// The digits one above `digits` (the point `point` digits in) when |x| lies exactly halfway
/// between them and the next ones up, where serde_json keeps the even of the two and Rust's
/// printer the one away from zero. Such a tie needs |x|'s exact decimal fraction to be one digit
/// longer than the digits: |x| = n / 2^f with f fractional digits, so only a value with a short
/// binary fraction (1658206780088562.25) can be one.
fn tie_away_from_zero(x: f64, digits: &str, point: i64) -> Option<String> {
    let bits = x.abs().to_bits();
    let biased = i64::try_from((bits >> 52) & 0x7ff).ok()?;
    let m = (bits & ((1 << 52) - 1)) | if biased == 0 { 0 } else { 1 << 52 };
    if m == 0 {
        return None;
    }
    let shift = 1075 - biased.max(1) - i64::from(m.trailing_zeros());
    let f = u32::try_from(shift).ok()?; // |x| = n / 2^f, f > 0
    let shown = u32::try_from(i64::try_from(digits.len()).ok()? - point).ok()?;
    if f != shown + 1 {
        return None;
    }
    // |x| * 10^f exactly, against the digits times 10. A tie has at most 18 significant digits,
    // so where this does not fit in 128 bits there is none.
    let exact = u128::from(m >> m.trailing_zeros()).checked_mul(5u128.checked_pow(f)?)?;
    let ours: u128 = digits.parse().ok()?;
    (exact == ours.checked_mul(10)?.checked_add(5)?).then(|| (ours + 1).to_string())
}

fn bounded(nanos: i128, binary: bool) -> Option<Amount> {
    (nanos.abs() <= MAX_UNITS * NANOS_PER_UNIT).then_some(Amount { nanos, binary })
}

impl fmt::Display for Amount {
    /// The shortest exact form: binary suffixes for binary quantities that are whole multiples of
    /// 1Ki, otherwise the largest decimal suffix that keeps the number whole.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const BINARY: [(&str, i128); 6] =
            [("Ei", 1 << 60), ("Pi", 1 << 50), ("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)];
        const DECIMAL: [(&str, i128); 9] = [
            ("E", 1_000_000_000_000_000_000_000_000_000),
            ("P", 1_000_000_000_000_000_000_000_000),
            ("T", 1_000_000_000_000_000_000_000),
            ("G", 1_000_000_000_000_000_000),
            ("M", 1_000_000_000_000_000),
            ("k", 1_000_000_000_000),
            ("", 1_000_000_000),
            ("m", 1_000_000),
            ("u", 1_000),
        ];
        let n = self.nanos;
        if n == 0 {
            return f.write_str("0");
        }
        if self.binary && n % NANOS_PER_UNIT == 0 {
            let units = n / NANOS_PER_UNIT;
            for (suffix, size) in BINARY {
                if units % size == 0 {
                    return write!(f, "{}{suffix}", units / size);
                }
            }
        }
        for (suffix, size) in DECIMAL {
            if n % size == 0 {
                return write!(f, "{}{suffix}", n / size);
            }
        }
        write!(f, "{n}n")
    }
}

fn parse(text: &str) -> Result<Amount, &'static str> {
    let bytes = text.as_bytes();
    let (negative, rest) = match bytes.first() {
        Some(b'-') => (true, bytes.get(1..).unwrap_or_default()),
        Some(b'+') => (false, bytes.get(1..).unwrap_or_default()),
        Some(_) => (false, bytes),
        None => return Err("it is empty"),
    };
    let int_len = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    let (int_digits, rest) = rest.split_at(int_len);
    let (frac_digits, rest) = match rest.split_first() {
        Some((b'.', after)) => {
            let n = after.iter().take_while(|c| c.is_ascii_digit()).count();
            after.split_at(n)
        }
        _ => (&[][..], rest),
    };
    if int_digits.is_empty() && frac_digits.is_empty() {
        return Err("it does not start with a number");
    }
    // Leading zeros carry no value; only significant digits count against the bound.
    let significant = int_digits.iter().skip_while(|c| **c == b'0').count() + frac_digits.len();
    if significant > 38 {
        return Err("it has too many digits");
    }
    let mut mantissa: i128 = 0;
    for d in int_digits.iter().chain(frac_digits) {
        mantissa =
            mantissa.checked_mul(10).and_then(|m| m.checked_add(i128::from(d - b'0'))).ok_or("it is too large")?;
    }
    let (exp10, pow2) = suffix(rest)?;
    // value = mantissa * 10^(exp10 - frac_len) * 2^pow2 units = ... * 10^9 nanos
    let frac_len = i32::try_from(frac_digits.len()).map_err(|_| "it has too many digits")?;
    let scale = exp10 - frac_len + 9;
    let mut nanos = mantissa.checked_mul(1i128.checked_shl(pow2).ok_or("it is too large")?).ok_or("it is too large")?;
    if scale >= 0 {
        let factor = 10i128.checked_pow(scale.unsigned_abs()).ok_or("it is too large")?;
        nanos = nanos.checked_mul(factor).ok_or("it is too large")?;
    } else {
        // Below a nano-unit: round up, as Kubernetes does.
        match 10i128.checked_pow(scale.unsigned_abs()) {
            Some(divisor) => {
                let rounded_up = nanos % divisor != 0;
                nanos = nanos / divisor + i128::from(rounded_up);
            }
            None => nanos = i128::from(nanos != 0),
        }
    }
    if negative {
        nanos = -nanos;
    }
    bounded(nanos, pow2 > 0).ok_or("it is larger than 2^63")
}

/// The power of ten and the power of two a suffix multiplies by.
fn suffix(s: &[u8]) -> Result<(i32, u32), &'static str> {
    Ok(match s {
        b"" => (0, 0),
        b"n" => (-9, 0),
        b"u" => (-6, 0),
        b"m" => (-3, 0),
        b"k" => (3, 0),
        b"M" => (6, 0),
        b"G" => (9, 0),
        b"T" => (12, 0),
        b"P" => (15, 0),
        b"E" => (18, 0),
        b"Ki" => (0, 10),
        b"Mi" => (0, 20),
        b"Gi" => (0, 30),
        b"Ti" => (0, 40),
        b"Pi" => (0, 50),
        b"Ei" => (0, 60),
        [b'e' | b'E', exponent @ ..] => {
            let (negative, digits) = match exponent.split_first() {
                Some((b'-', d)) => (true, d),
                Some((b'+', d)) => (false, d),
                _ => (false, exponent),
            };
            if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
                return Err("the exponent after `e` is not a whole number");
            }
            if digits.len() > 3 {
                return Err("the exponent is out of range");
            }
            let mut e: i32 = 0;
            for d in digits {
                e = e * 10 + i32::from(d - b'0');
            }
            if e > 40 {
                return Err("the exponent is out of range");
            }
            (if negative { -e } else { e }, 0)
        }
        _ => return Err("the suffix is not one of n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an exponent"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `float_text` is `x.to_string()`: powers of ten and their neighbours, halves and tenths,
    /// powers of two and their small odd multiples, the edges of the range, a million bit
    /// patterns, and a million values of 17 digits, half of them with a short binary fraction
    /// (where serde_json's digits and Rust's differed in 261 of a million before ties were taken
    /// away from zero).
    #[test]
    fn float_text_is_rusts_display() {
        let mut cases =
            vec![0.0, -0.0, 1.0, 0.5, 0.1, 0.3, 1.5, 250.0, 1e21, 1e22, 1e-7, 123_456.789, f64::MAX, f64::MIN_POSITIVE];
        cases.extend([f64::MIN, 5e-324, f64::EPSILON, f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
        for e in -330..310 {
            let p = format!("1e{e}").parse::<f64>().unwrap();
            cases.extend([
                p,
                -p,
                p * 1.5,
                p * 0.999_999_9,
                f64::from_bits(p.to_bits() + 1),
                f64::from_bits(p.to_bits().saturating_sub(1)),
            ]);
        }
        cases.extend((0..2000).map(|k| f64::from(k) / 10.0));
        // Powers of two and small odd multiples of them: exact decimals of few digits, ties where
        // the shortest form has one digit fewer (2^-25 = 2.98023223876953125e-8).
        for e in -1074..1024 {
            for n in [1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0, 1023.0, 4097.0] {
                cases.extend([n * 2f64.powi(e), -n * 2f64.powi(e)]);
            }
        }
        // Where the shortest digits come to 17 and a tie between two of them can fall.
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..500_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let exponent = 1040 + state % 50; // 2^17 .. 2^66
            cases.push(f64::from_bits((exponent << 52) | (state >> 12)));
            cases.push(f64::from_bits((exponent << 52) | ((state >> 12) & !0xFFFF_FFFF))); // a short binary fraction
        }
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..1_000_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            cases.push(f64::from_bits(state));
        }
        for x in cases {
            assert_eq!(float_text(x), x.to_string(), "{x:e} ({:#x})", x.to_bits());
        }
    }

    #[test]
    fn canonical_forms_are_the_api_servers() {
        for (text, stored) in [
            ("0.5", "500m"),
            ("1.0", "1"),
            ("1000m", "1"),
            ("2000", "2k"),
            ("1500", "1500"),
            ("1.5Gi", "1536Mi"),
            ("1024Mi", "1Gi"),
            ("1536", "1536"),
            ("0.0000001", "100n"),
            ("256Mi", "256Mi"),
            ("1e3", "1e3"),
            ("two", "two"),
        ] {
            assert_eq!(canonical(text), stored, "{text}");
        }
    }

    fn units(s: &str) -> i128 {
        Amount::parse(s).map(|a| a.nanos).unwrap_or(i128::MIN)
    }

    #[test]
    fn grammar() {
        assert_eq!(units("1"), 1_000_000_000);
        assert_eq!(units("0.5"), 500_000_000);
        assert_eq!(units(".5"), 500_000_000);
        assert_eq!(units("5."), 5_000_000_000);
        assert_eq!(units("100m"), 100_000_000);
        assert_eq!(units("256Mi"), 256 * (1 << 20) * 1_000_000_000);
        assert_eq!(units("1e3"), 1_000_000_000_000);
        assert_eq!(units("1E3"), 1_000_000_000_000);
        assert_eq!(units("1E"), 1_000_000_000_000_000_000_000_000_000);
        assert_eq!(units("+2k"), 2_000_000_000_000);
        assert_eq!(units("-1"), -1_000_000_000);
        assert_eq!(units("0.1n"), 1);
        assert_eq!(units("1e-12"), 1);
        assert_eq!(units("0000000000000000000000000000000000000000001"), 1_000_000_000);
        for bad in [
            "",
            "Mi",
            "1.2.3",
            "1 Gi",
            "1GB",
            "one",
            "1e",
            "1e+",
            "1e99999",
            "99999999999999999999999",
            "1Ki5",
            "--1",
            "1e41",
        ] {
            assert!(Amount::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn display_round_trips() {
        for s in ["0", "1", "500m", "256Mi", "2Gi", "1536Mi", "3k", "1500", "1n", "250u"] {
            assert_eq!(Amount::parse(s).map(|a| a.to_string()).as_deref(), Ok(s), "{s}");
        }
        assert_eq!(Amount::parse("0.5").map(|a| a.to_string()).as_deref(), Ok("500m"));
        assert_eq!(Amount::parse("1024Mi").map(|a| a.to_string()).as_deref(), Ok("1Gi"));
    }

    #[test]
    fn arithmetic() {
        let a = Amount::parse("256Mi").unwrap_or(Amount::ZERO);
        assert_eq!(a.checked_mul(2).map(|x| x.to_string()).as_deref(), Some("512Mi"));
        let max = Amount::parse("9223372036854775807").unwrap_or(Amount::ZERO);
        assert!(max.checked_add(Amount::parse("1").unwrap_or(Amount::ZERO)).is_none());
    }
}
