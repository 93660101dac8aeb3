//! Times as Kubernetes holds them (`metav1.Time`): read as the API server reads one, written as it
//! writes one.
//!
//! - **Read**: `metav1.Time`'s `UnmarshalJSON` (`k8s.io/apimachinery/pkg/apis/meta/v1/time.go`)
//!   calls Go's `time.Parse(time.RFC3339, text)`, and [`Time::parse`] accepts exactly what that
//!   does: a four-digit year, a two-digit month and day, `T`, an hour of one or two digits, a
//!   two-digit minute and second (no leap second), a fraction after `.` or `,` of any length (its
//!   first nine digits kept), then `Z` or an offset `±hh:mm` (up to `24:60`), and nothing after it.
//! - **Written**: its `MarshalJSON` writes `t.UTC().Format(time.RFC3339)`: in UTC, whole seconds, a
//!   year below zero with its sign and a year past 9999 in full.
//!
//! `tests/times.rs` holds both equal to apimachinery's on every input of `tests/fixtures/times.tsv`,
//! a file apimachinery's own `metav1.Time` writes and checks (`tests/cluster/times`, run by `make
//! test-consumers`). One difference is kept on purpose: Go's zero time (`0001-01-01T00:00:00Z`),
//! which `MarshalJSON` writes as `null`, is written as a time, as k8s-openapi wrote it.
//!
//! The core's own rather than k8s-openapi's (which reads with jiff's RFC 9557 parser and writes
//! with its `strftime`): jiff's parser, formatter and error messages, and k8s-openapi's readers of
//! the types that hold a time, were 66 KB of the gzipped npm module and 40 KB of the policy's
//! (docs/benchmarks.md, "Times of the core's own").

use std::fmt;
use std::str::FromStr;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A moment: seconds since the Unix epoch and the nanoseconds past them.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time {
    seconds: i64,
    nanos: u32,
}

/// What a time must look like, as errors say it.
const EXPECTED: &str = "an RFC 3339 time such as 2026-01-02T03:04:05Z";

/// The seconds of a day.
const DAY: i64 = 86_400;

/// The first and last second a four-digit year holds (`0000-01-01T00:00:00Z` and
/// `9999-12-31T23:59:59Z`): the times the API server can read back, which arithmetic keeps to.
const FIRST_SECOND: i64 = -62_167_219_200;
const LAST_SECOND: i64 = 253_402_300_799;

impl Time {
    /// 1970-01-01T00:00:00Z.
    pub const UNIX_EPOCH: Time = Time { seconds: 0, nanos: 0 };

    /// Reads `text` as Go's `time.Parse(time.RFC3339, text)` does; `None` where Go gives an error.
    pub fn parse(text: &str) -> Option<Time> {
        let s = text.as_bytes();
        let (year, s) = digits(s, 4)?;
        let (month, s) = digits(literal(s, b'-')?, 2)?;
        let (day, s) = digits(literal(s, b'-')?, 2)?;
        let s = literal(s, b'T')?;
        let (hour, s) = match digits(s, 2) {
            Some(two) => two,
            None => digits(s, 1)?,
        };
        let (minute, s) = digits(literal(s, b':')?, 2)?;
        let (second, s) = digits(literal(s, b':')?, 2)?;
        let (nanos, s) = fraction(s);
        let offset = zone(s)?;
        let valid = (1..=12).contains(&month) && hour < 24 && minute < 60 && second < 60;
        if !valid || day < 1 || day > days_in_month(year, month) {
            return None;
        }
        let seconds = days_from_civil(year, month, day) * DAY + hour * 3600 + minute * 60 + second - offset;
        Some(Time { seconds, nanos })
    }

    /// The whole seconds since the Unix epoch.
    pub fn unix_seconds(&self) -> i64 {
        self.seconds
    }

    /// The nanoseconds past [`Time::unix_seconds`].
    pub fn subsec_nanos(&self) -> u32 {
        self.nanos
    }

    /// `seconds` later (earlier when negative); `None` past the years 0000 to 9999.
    pub fn checked_add_seconds(&self, seconds: i64) -> Option<Time> {
        let later = self.seconds.checked_add(seconds).filter(|s| (FIRST_SECOND..=LAST_SECOND).contains(s))?;
        Some(Time { seconds: later, nanos: self.nanos })
    }
}

/// The number of `width` ASCII digits at the start of `s`, and the rest.
fn digits(s: &[u8], width: usize) -> Option<(i64, &[u8])> {
    let (head, rest) = s.split_at_checked(width)?;
    let mut n = 0;
    for b in head {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n * 10 + i64::from(b - b'0');
    }
    Some((n, rest))
}

/// `s` without its first byte, when that is `byte`.
fn literal(s: &[u8], byte: u8) -> Option<&[u8]> {
    s.strip_prefix(&[byte])
}

/// A fraction of a second (`.` or `,` and at least one digit) as nanoseconds, and the rest; none
/// leaves `s` as it is.
fn fraction(s: &[u8]) -> (u32, &[u8]) {
    let Some((b'.' | b',', tail)) = s.split_first() else { return (0, s) };
    let count = tail.iter().take_while(|b| b.is_ascii_digit()).count();
    if count == 0 {
        return (0, s);
    }
    let mut nanos = 0;
    for place in 0..9 {
        nanos = nanos * 10 + tail.get(place).filter(|_| place < count).map_or(0, |b| u32::from(b - b'0'));
    }
    (nanos, tail.get(count..).unwrap_or_default())
}

/// The offset `s` names (`Z` or `±hh:mm`, Go allowing up to `24:60`) in seconds east of UTC; `None`
/// when it names none or anything follows it.
fn zone(s: &[u8]) -> Option<i64> {
    if s == b"Z" {
        return Some(0);
    }
    let (&sign, s) = s.split_first()?;
    let (hours, s) = digits(s, 2)?;
    let (minutes, s) = digits(literal(s, b':')?, 2)?;
    if !s.is_empty() || hours > 24 || minutes > 60 {
        return None;
    }
    let offset = (hours * 60 + minutes) * 60;
    match sign {
        b'+' => Some(offset),
        b'-' => Some(-offset),
        _ => None,
    }
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The days from 1970-01-01 to a date of the proleptic Gregorian calendar.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y.rem_euclid(400);
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date (year, month, day) `days` after 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 { shifted_month + 3 } else { shifted_month - 9 };
    (year_of_era + era * 400 + i64::from(month <= 2), month, day)
}

/// Go's `Format(time.RFC3339)` in UTC: `2026-01-02T03:04:05Z`.
impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (year, month, day) = civil_from_days(self.seconds.div_euclid(DAY));
        let second = self.seconds.rem_euclid(DAY);
        if year < 0 {
            f.write_str("-")?;
        }
        write!(
            f,
            "{:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
            year.unsigned_abs(),
            second / 3600,
            second / 60 % 60,
            second % 60
        )
    }
}

/// Why a text is no time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeError;

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not {EXPECTED}")
    }
}

impl std::error::Error for TimeError {}

impl FromStr for Time {
    type Err = TimeError;

    fn from_str(text: &str) -> Result<Time, TimeError> {
        Time::parse(text).ok_or(TimeError)
    }
}

impl Serialize for Time {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Time, D::Error> {
        struct TimeVisitor;

        impl Visitor<'_> for TimeVisitor {
            type Value = Time;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(EXPECTED)
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<Time, E> {
                Time::parse(text).ok_or_else(|| E::invalid_value(de::Unexpected::Str(text), &EXPECTED))
            }
        }

        deserializer.deserialize_str(TimeVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_a_time() {
        let t = Time::parse("2026-01-02T03:04:05.123456789123+01:30").unwrap_or_default();
        assert_eq!((t.unix_seconds(), t.subsec_nanos()), (1_767_317_645, 123_456_789));
        assert_eq!(t.to_string(), "2026-01-02T01:34:05Z");
        assert_eq!(Time::UNIX_EPOCH.to_string(), "1970-01-01T00:00:00Z");
        assert_eq!(
            Time::parse("0000-01-01T00:00:00+00:01").map(|t| t.to_string()).as_deref(),
            Some("-0001-12-31T23:59:00Z")
        );
        assert_eq!(Time::parse("2024-02-30T00:00:00Z"), None);
        assert_eq!("x".parse::<Time>(), Err(TimeError));
    }

    #[test]
    fn arithmetic_keeps_to_four_digit_years() {
        let first = Time::parse("0000-01-01T00:00:00Z").unwrap_or_default();
        let last = Time::parse("9999-12-31T23:59:59Z").unwrap_or_default();
        assert_eq!((first.unix_seconds(), last.unix_seconds()), (FIRST_SECOND, LAST_SECOND));
        assert_eq!(last.checked_add_seconds(1), None);
        assert_eq!(first.checked_add_seconds(-1), None);
        assert_eq!(Time::UNIX_EPOCH.checked_add_seconds(i64::MAX), None);
        assert_eq!(
            Time::UNIX_EPOCH.checked_add_seconds(60).map(|t| t.to_string()).as_deref(),
            Some("1970-01-01T00:01:00Z")
        );
    }
}
