//! DynamoDB's number type: exact decimals of up to 38 significant digits whose leading digit sits
//! between 10^-130 and 10^125. Items keep numbers as text; this is the one home of the rules
//! behind them: parsing, the checks, the canonical form, exact comparison and `+`/`-`/`ADD`,
//! and the order-preserving bytes the engine keys by. No floating point anywhere: `0.1 + 0.2`
//! is `0.3`.

use std::cmp::Ordering;
use std::fmt;

/// Significant digits DynamoDB keeps.
pub(crate) const MAX_DIGITS: usize = 38;
/// Largest decimal exponent of the leading digit (9.99...E+125).
const MAX_EXPONENT: i64 = 125;
/// Smallest decimal exponent of the leading digit (1E-130).
const MIN_EXPONENT: i64 = -130;
/// Exponents in the text are clamped here, far outside the valid range, so that absurd input
/// ("1e99999999999999999999") is reported as an overflow instead of overflowing an `i64`.
const EXPONENT_CLAMP: i64 = 1 << 40;

/// An exact decimal: `digits × 10^exponent`, sign apart. Canonical: `digits` has no leading or
/// trailing zeros (zero is the empty digit string, never negative), so equal values have equal
/// representations and `==`/`Hash` are numeric.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Number {
    negative: bool,
    /// Number digits 0..=9, most significant first.
    digits: Vec<u8>,
    exponent: i64,
}

/// A number's canonical parts read from its text without allocating: the sign, the significant
/// digits (no leading or trailing zeros; none for zero, which is never negative) and the exponent
/// of the last of them, so that equal numbers written differently (`1.50`, `15e-1`, `+1.5`) have
/// equal parts. [`Number::parse`] is built on it; paths that only need the canonical form, such as
/// cache keys, read it directly. The range is not checked (see [`Number::check`]).
///
/// ```
/// use dyno_core::value::Decimal;
/// let a = Decimal::parse("001.50").unwrap();
/// let b = Decimal::parse("15e-1").unwrap();
/// assert!(a.digits().eq(b.digits()) && a.exponent() == b.exponent());
/// assert_eq!(a.digits().collect::<Vec<_>>(), [1, 5]);
/// assert_eq!(a.exponent(), -1);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Decimal<'a> {
    negative: bool,
    /// The mantissa as written: digits with at most one point.
    mantissa: &'a [u8],
    /// The significant digits are the mantissa's digits `first..last`.
    first: usize,
    last: usize,
    exponent: i64,
}

impl<'a> Decimal<'a> {
    /// Parses decimal text as DynamoDB accepts it: an optional sign, digits with at most one
    /// point (`5.`, `.5` and `0001.23` are fine), an optional exponent (`1e+5`, `-17.4E37`). No
    /// spaces, no `NaN`/`Infinity`, no hexadecimal.
    pub fn parse(text: &'a str) -> Result<Self, NumberError> {
        let bytes = text.as_bytes();
        let (negative, start) = match bytes.first() {
            Some(b'-') => (true, 1),
            Some(b'+') => (false, 1),
            _ => (false, 0),
        };
        let mut i = start;
        let mut count = 0;
        let mut first = None;
        let mut last = 0;
        let mut fraction_digits: i64 = 0;
        let mut seen_point = false;
        while let Some(&c) = bytes.get(i) {
            match c {
                b'0'..=b'9' => {
                    if c != b'0' {
                        first.get_or_insert(count);
                        last = count + 1;
                    }
                    count += 1;
                    if seen_point {
                        fraction_digits += 1;
                    }
                }
                b'.' if !seen_point => seen_point = true,
                _ => break,
            }
            i += 1;
        }
        if count == 0 {
            return Err(NumberError::Syntax);
        }
        let mantissa = &bytes[start..i];
        let mut exponent: i64 = 0;
        if let Some(&e) = bytes.get(i) {
            if e != b'e' && e != b'E' {
                return Err(NumberError::Syntax);
            }
            i += 1;
            let mut exponent_negative = false;
            if let Some(&sign) = bytes.get(i)
                && (sign == b'+' || sign == b'-')
            {
                exponent_negative = sign == b'-';
                i += 1;
            }
            let digits_start = i;
            while let Some(&c) = bytes.get(i) {
                if !c.is_ascii_digit() {
                    return Err(NumberError::Syntax);
                }
                exponent = (exponent * 10 + i64::from(c - b'0')).min(EXPONENT_CLAMP);
                i += 1;
            }
            if i == digits_start {
                return Err(NumberError::Syntax);
            }
            if exponent_negative {
                exponent = -exponent;
            }
        }
        let Some(first) = first else {
            return Ok(Decimal {
                negative: false,
                mantissa,
                first: 0,
                last: 0,
                exponent: 0,
            });
        };
        // The mantissa's last digit sits at 10^(exponent - fraction_digits); the last
        // significant one `count - last` places above it.
        let exponent = (exponent - fraction_digits + (count - last) as i64)
            .clamp(-EXPONENT_CLAMP, EXPONENT_CLAMP);
        Ok(Decimal {
            negative,
            mantissa,
            first,
            last,
            exponent,
        })
    }

    /// True for a negative number (never for zero).
    pub fn is_negative(&self) -> bool {
        self.negative
    }

    /// True for zero, however written.
    pub fn is_zero(&self) -> bool {
        self.last == 0
    }

    /// The significant digits (0..=9), most significant first; none for zero.
    pub fn digits(&self) -> impl Iterator<Item = u8> + 'a + use<'a> {
        self.mantissa
            .iter()
            .filter(|c| c.is_ascii_digit())
            .map(|c| c - b'0')
            .skip(self.first)
            .take(self.last - self.first)
    }

    /// How many significant digits there are (0 for zero).
    pub fn digit_count(&self) -> usize {
        self.last - self.first
    }

    /// The exponent of the last significant digit: the number is `digits × 10^exponent`.
    pub fn exponent(&self) -> i64 {
        self.exponent
    }
}

impl From<Decimal<'_>> for Number {
    fn from(d: Decimal<'_>) -> Self {
        Number {
            negative: d.negative,
            digits: d.digits().collect(),
            exponent: d.exponent,
        }
    }
}

/// Why a number is not a DynamoDB number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberError {
    /// Not decimal text (`NaN`, `Infinity`, `1e`, `" 1"`, empty...).
    Syntax,
    /// More than 38 significant digits.
    Precision,
    /// Magnitude of 1E+126 or more.
    Overflow,
    /// Nonzero magnitude below 1E-130.
    Underflow,
}

impl NumberError {
    /// DynamoDB's wording for this error.
    pub fn message(self) -> &'static str {
        match self {
            NumberError::Syntax => "The parameter cannot be converted to a numeric value",
            NumberError::Precision => "Attempting to store more than 38 significant digits in a Number",
            NumberError::Overflow => {
                "Number overflow. Attempting to store a number with magnitude larger than supported range"
            }
            NumberError::Underflow => {
                "Number underflow. Attempting to store a number with magnitude smaller than supported range"
            }
        }
    }
}

impl Number {
    /// Zero.
    pub fn zero() -> Self {
        Number {
            negative: false,
            digits: Vec::new(),
            exponent: 0,
        }
    }

    /// Parses decimal text as DynamoDB accepts it: an optional sign, digits with at most one
    /// point (`5.`, `.5` and `0001.23` are fine), an optional exponent (`1e+5`, `-17.4E37`). No
    /// spaces, no `NaN`/`Infinity`, no hexadecimal. The range is not checked here; see [`check`].
    ///
    /// [`check`]: Number::check
    pub fn parse(text: &str) -> Result<Self, NumberError> {
        Decimal::parse(text).map(Number::from)
    }

    /// Checks DynamoDB's limits: at most 38 significant digits, leading digit between 10^-130
    /// and 10^125. The digits are checked first: a number that breaks both (the exact sum of
    /// two 38-digit numbers near the top of the range) is refused for its precision, as
    /// dynoxide refuses it (DynamoDB's documentation names both limits, not their order).
    pub fn check(&self) -> Result<(), NumberError> {
        if self.is_zero() {
            return Ok(());
        }
        if self.digits.len() > MAX_DIGITS {
            return Err(NumberError::Precision);
        }
        let adjusted = self.adjusted_exponent();
        if adjusted > MAX_EXPONENT {
            return Err(NumberError::Overflow);
        }
        if adjusted < MIN_EXPONENT {
            return Err(NumberError::Underflow);
        }
        Ok(())
    }

    /// Parses and checks: the number as DynamoDB would store it.
    pub fn parse_checked(text: &str) -> Result<Self, NumberError> {
        let d = Number::parse(text)?;
        d.check()?;
        Ok(d)
    }

    /// True for zero.
    pub fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// Number of significant digits (0 for zero).
    pub fn significant_digits(&self) -> usize {
        self.digits.len()
    }

    /// The decimal exponent of the leading digit: 2 for 123, -1 for 0.5.
    fn adjusted_exponent(&self) -> i64 {
        self.exponent + self.digits.len() as i64 - 1
    }

    /// Builds a canonical decimal from digits (any leading or trailing zeros) and an exponent.
    fn from_digits(negative: bool, mut digits: Vec<u8>, mut exponent: i64) -> Self {
        let leading = digits.iter().take_while(|&&d| d == 0).count();
        digits.drain(..leading);
        let trailing = digits.iter().rev().take_while(|&&d| d == 0).count();
        digits.truncate(digits.len() - trailing);
        if digits.is_empty() {
            return Number::zero();
        }
        exponent = exponent
            .saturating_add(trailing as i64)
            .clamp(-EXPONENT_CLAMP, EXPONENT_CLAMP);
        Number {
            negative,
            digits,
            exponent,
        }
    }

    /// The number as bytes whose bytewise order is numeric order: a sign byte, the decimal
    /// exponent of the leading digit (inverted for negatives), then the significant digits
    /// (inverted and terminated for negatives, so that a shorter negative mantissa sorts after a
    /// longer one: -1.2 > -1.23). Equal numbers written differently (`1.50`, `1.5`, `15e-1`) have
    /// the same bytes.
    ///
    /// ```
    /// use dyno_core::value::Number;
    /// let bytes = |n: &str| Number::parse(n).unwrap().key_bytes();
    /// assert!(bytes("-10") < bytes("-9.5") && bytes("-9.5") < bytes("0"));
    /// assert!(bytes("0") < bytes("1e-5") && bytes("1e-5") < bytes("100"));
    /// assert_eq!(bytes("1.50"), bytes("15e-1"));
    /// ```
    pub fn key_bytes(&self) -> Vec<u8> {
        if self.is_zero() {
            return vec![0x02];
        }
        let sci = self.adjusted_exponent().clamp(-0x3fff, 0x3fff) as i16;
        let biased = (i32::from(sci) + 0x4000) as u16;
        let mut out = Vec::with_capacity(4 + self.digits.len());
        if self.negative {
            out.push(0x01);
            out.extend_from_slice(&(!biased).to_be_bytes());
            out.extend(self.digits.iter().map(|d| 10 - d));
            out.push(0xff);
        } else {
            out.push(0x03);
            out.extend_from_slice(&biased.to_be_bytes());
            out.extend(self.digits.iter().map(|d| d + 1));
        }
        out
    }

    /// `-self`.
    #[must_use]
    pub fn negated(&self) -> Self {
        let mut d = self.clone();
        d.negative = !d.is_zero() && !d.negative;
        d
    }

    /// The exact sum. Meant for checked operands (their exponents are bounded, so the aligned
    /// digit strings stay a few hundred digits long); check the result before storing it.
    #[must_use]
    pub fn add(&self, other: &Number) -> Number {
        if self.is_zero() {
            return other.clone();
        }
        if other.is_zero() {
            return self.clone();
        }
        let exponent = self.exponent.min(other.exponent);
        let a = self.aligned_le(exponent);
        let b = other.aligned_le(exponent);
        if self.negative == other.negative {
            return Number::from_le(self.negative, add_le(&a, &b), exponent);
        }
        match cmp_magnitude(self, other) {
            Ordering::Equal => Number::zero(),
            Ordering::Greater => Number::from_le(self.negative, sub_le(&a, &b), exponent),
            Ordering::Less => Number::from_le(other.negative, sub_le(&b, &a), exponent),
        }
    }

    /// The exact difference `self - other`; see [`Number::add`].
    #[must_use]
    pub fn sub(&self, other: &Number) -> Number {
        self.add(&other.negated())
    }

    /// This number rounded to at most `digits` significant digits, toward +infinity when `up`,
    /// toward -infinity otherwise. A bound rounded this way keeps its meaning for stored numbers
    /// (which have at most 38 digits): `x <= hi` exactly when `x <= hi.rounded(38, false)`.
    ///
    /// ```
    /// use dyno_core::value::Number;
    /// let n = |t: &str| Number::parse(t).unwrap();
    /// assert_eq!(n("1239").rounded(3, false), n("1230"));
    /// assert_eq!(n("1239").rounded(3, true), n("1240"));
    /// assert_eq!(n("-1239").rounded(3, true), n("-1230"));
    /// assert_eq!(n("9999").rounded(3, true), n("10000"));
    /// ```
    #[must_use]
    pub fn rounded(&self, digits: usize, up: bool) -> Number {
        if self.digits.len() <= digits {
            return self.clone();
        }
        let dropped = (self.digits.len() - digits) as i64;
        let exponent = self.exponent + dropped;
        let truncated =
            Number::from_digits(self.negative, self.digits[..digits].to_vec(), exponent);
        // Truncation moved toward zero; one unit of the last kept digit away from zero when the
        // direction asks for it (the dropped digits are never all zero: canonical form).
        if up != self.negative {
            let unit = Number::from_digits(self.negative, vec![1], exponent);
            truncated.add(&unit)
        } else {
            truncated
        }
    }

    /// Digits least significant first, scaled to `exponent` (which must not exceed ours).
    fn aligned_le(&self, exponent: i64) -> Vec<u8> {
        let shift = usize::try_from(self.exponent - exponent).unwrap_or(0);
        let mut le = vec![0; shift];
        le.extend(self.digits.iter().rev());
        le
    }

    fn from_le(negative: bool, mut le: Vec<u8>, exponent: i64) -> Self {
        le.reverse();
        Number::from_digits(negative, le, exponent)
    }
}

/// Sum of two little-endian digit strings.
fn add_le(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
    let mut carry = 0;
    for i in 0..a.len().max(b.len()) {
        let s = a.get(i).copied().unwrap_or(0) + b.get(i).copied().unwrap_or(0) + carry;
        out.push(s % 10);
        carry = s / 10;
    }
    if carry > 0 {
        out.push(carry);
    }
    out
}

/// Difference of two little-endian digit strings, `a >= b`.
fn sub_le(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len());
    let mut borrow = 0;
    for (i, &da) in a.iter().enumerate() {
        let db = b.get(i).copied().unwrap_or(0) + borrow;
        if da >= db {
            out.push(da - db);
            borrow = 0;
        } else {
            out.push(da + 10 - db);
            borrow = 1;
        }
    }
    debug_assert_eq!(borrow, 0, "sub_le needs a >= b");
    out
}

/// Compares absolute values.
fn cmp_magnitude(a: &Number, b: &Number) -> Ordering {
    match (a.is_zero(), b.is_zero()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        // Canonical digits have no trailing zeros, so once the leading digits line up a plain
        // lexicographic comparison is numeric (a shorter prefix is smaller: 0.12 < 0.125).
        (false, false) => a
            .adjusted_exponent()
            .cmp(&b.adjusted_exponent())
            .then_with(|| a.digits.cmp(&b.digits)),
    }
}

impl Ord for Number {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => cmp_magnitude(self, other),
            (true, true) => cmp_magnitude(other, self),
        }
    }
}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// When `text` is already a checked number in canonical form (exactly what `Display` writes for
/// it), its number of significant digits; `None` when it is not (not canonical, or not a valid
/// number: parse it). Writes of canonical numbers, the common case, take this path and neither
/// parse nor rewrite them.
pub(crate) fn canonical_digits(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let (negative, body) = match bytes.split_first()? {
        (b'-', rest) => (true, rest),
        _ => (false, bytes),
    };
    let point = body.iter().position(|&c| c == b'.');
    let (int, frac) = match point {
        Some(at) => (&body[..at], &body[at + 1..]),
        None => (body, &[][..]),
    };
    if int.is_empty() || !int.iter().chain(frac).all(u8::is_ascii_digit) {
        return None;
    }
    // A point needs a fraction ending in a nonzero digit.
    if point.is_some() && frac.last().is_none_or(|&c| c == b'0') {
        return None;
    }
    let (significant, adjusted) = if int == b"0" {
        if frac.is_empty() {
            // Zero is `0`, never `-0`.
            return (!negative).then_some(0);
        }
        let zeros = frac.iter().take_while(|&&c| c == b'0').count();
        (frac.len() - zeros, -(zeros as i64) - 1)
    } else {
        if int[0] == b'0' {
            return None;
        }
        let trailing = if frac.is_empty() {
            int.iter().rev().take_while(|&&c| c == b'0').count()
        } else {
            0
        };
        (int.len() + frac.len() - trailing, int.len() as i64 - 1)
    };
    (significant <= MAX_DIGITS && (MIN_EXPONENT..=MAX_EXPONENT).contains(&adjusted))
        .then_some(significant)
}

/// Plain notation without an exponent (`1e3` is `1000`, `1.50` is `1.5`, `-0` is `0`), so that
/// integer decoders read back what they wrote. Only meaningful for checked numbers: an unchecked
/// exponent can be huge.
impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_zero() {
            return f.write_str("0");
        }
        let sign = if self.negative { "-" } else { "" };
        let digits: String = self.digits.iter().map(|&d| char::from(b'0' + d)).collect();
        if self.exponent >= 0 {
            let zeros = "0".repeat(usize::try_from(self.exponent).unwrap_or(0));
            return write!(f, "{sign}{digits}{zeros}");
        }
        let point = self.digits.len() as i64 + self.exponent;
        match usize::try_from(point) {
            Ok(point) if point > 0 => {
                let (int, frac) = digits.split_at(point);
                write!(f, "{sign}{int}.{frac}")
            }
            _ => {
                let zeros = "0".repeat(usize::try_from(-point).unwrap_or(0));
                write!(f, "{sign}0.{zeros}{digits}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn d(s: &str) -> Number {
        Number::parse(s).unwrap_or_else(|e| panic!("{s}: {e:?}"))
    }

    #[test]
    fn parses_the_forms_dynamodb_accepts() {
        for (text, canonical) in [
            ("3", "3"),
            ("-7.1234", "-7.1234"),
            ("-17e5", "-1700000"),
            ("-17.4E37", "-174000000000000000000000000000000000000"),
            ("+3", "3"),
            (".123", "0.123"),
            ("0001.23", "1.23"),
            ("1e+5", "100000"),
            ("0e1000", "0"),
            ("5.", "5"),
            ("+.5", "0.5"),
            ("+0.0", "0"),
            ("-0", "0"),
            ("1.50", "1.5"),
            ("1e3", "1000"),
            ("0.000120", "0.00012"),
            ("12.5e-3", "0.0125"),
            ("1E-130", &format!("0.{}1", "0".repeat(129))),
        ] {
            assert_eq!(d(text).to_string(), canonical, "{text}");
        }
    }

    #[test]
    fn rejects_text_that_is_not_a_number() {
        for text in [
            "",
            "NaN",
            "-NaN",
            "Infinity",
            "-Infinity",
            "dog",
            "-dog",
            " 1",
            "1 ",
            "+e2",
            "1+2",
            "+1+2",
            "1.2.3",
            "++5",
            "1e",
            "1e+",
            ".",
            "-",
            "e5",
            "0x10",
            "1_000",
            "1,5",
        ] {
            assert_eq!(Number::parse(text), Err(NumberError::Syntax), "{text:?}");
        }
    }

    #[test]
    fn checks_precision_and_magnitude() {
        for ok in [
            "12345678901234567890123456789012345678",
            "3.1415926535897932384626433832795028841",
            "31415926535897932384626433832795028841e30",
            "9.9999999999999999999999999999999999999E125",
            "-9.9999999999999999999999999999999999999E125",
            "1e125",
            "1E-130",
            "-1E-130",
            // Trailing zeros are not significant: 39 characters, one significant digit.
            "100000000000000000000000000000000000000",
            "110111111111111110000000000000000000000",
            "0e99999999999999999999999",
        ] {
            assert_eq!(Number::parse_checked(ok).map(|_| ()), Ok(()), "{ok}");
        }
        for (bad, error) in [
            (
                "123456789012345678901234567890123456789",
                NumberError::Precision,
            ),
            (
                "3.14159265358979323846264338327950288419",
                NumberError::Precision,
            ),
            ("1e126", NumberError::Overflow),
            ("11e125", NumberError::Overflow),
            ("-1e126", NumberError::Overflow),
            ("1e99999999999999999999999", NumberError::Overflow),
            ("1e-131", NumberError::Underflow),
            ("0.9e-130", NumberError::Underflow),
            ("-1e-131", NumberError::Underflow),
        ] {
            assert_eq!(Number::parse_checked(bad), Err(error), "{bad}");
        }
    }

    #[test]
    fn orders_numerically() {
        let ascending = [
            "-1e125", "-100", "-99.99", "-1", "-0.5", "-1e-130", "0", "1e-130", "0.1", "0.125",
            "0.13", "1", "9", "10", "10.5", "99", "100", "1e125",
        ];
        for (i, a) in ascending.iter().enumerate() {
            for (j, b) in ascending.iter().enumerate() {
                assert_eq!(d(a).cmp(&d(b)), i.cmp(&j), "{a} vs {b}");
            }
        }
        assert_eq!(d("1.0"), d("1"));
        assert_eq!(d("-0"), d("0"));
        assert_eq!(d("1e2"), d("100.000"));
    }

    #[test]
    fn adds_and_subtracts_exactly() {
        for (a, b, sum) in [
            ("0.1", "0.2", "0.3"),
            ("1", "10000000000000000000000", "10000000000000000000001"),
            ("-5", "3", "-2"),
            ("5", "-5", "0"),
            (
                "99999999999999999999999999999999999999",
                "1",
                "100000000000000000000000000000000000000",
            ),
            ("1.5", "-0.25", "1.25"),
            ("-0.1", "-0.02", "-0.12"),
            ("0", "-7", "-7"),
        ] {
            assert_eq!(d(a).add(&d(b)).to_string(), sum, "{a} + {b}");
        }
        assert_eq!(
            d("10000000000000000000000").sub(&d("1")).to_string(),
            "9999999999999999999999"
        );
        assert_eq!(d("3").sub(&d("5")).to_string(), "-2");
        assert_eq!(d("0.3").sub(&d("0.1")).to_string(), "0.2");
    }

    #[test]
    fn arithmetic_results_are_checked_like_stored_numbers() {
        // 38 nines plus one is 1E+38: one significant digit, a valid DynamoDB number.
        let big = d("99999999999999999999999999999999999999").add(&d("1"));
        assert_eq!(big.check(), Ok(()));
        assert_eq!(
            d("99999999999999999999999999999999999999")
                .add(&d("0.1"))
                .check(),
            Err(NumberError::Precision)
        );
        assert_eq!(d("1e50").add(&d("1")).check(), Err(NumberError::Precision));
        assert_eq!(
            d("9e125").add(&d("9e125")).check(),
            Err(NumberError::Overflow)
        );
        // Out of range with 39 significant digits: the digits are named (dynoxide's order).
        assert_eq!(
            d("9.9999999999999999999999999999999999999E+125")
                .add(&d("1E+125"))
                .check(),
            Err(NumberError::Precision)
        );
        assert_eq!(
            d("1e-130").sub(&d("1.1e-130")).check(),
            Err(NumberError::Underflow)
        );
    }

    fn decimal_text(mantissa: i64, scale: u32) -> String {
        let digits = mantissa.unsigned_abs().to_string();
        let sign = if mantissa < 0 { "-" } else { "" };
        let scale = scale as usize;
        if scale == 0 {
            return format!("{sign}{digits}");
        }
        let padded = format!("{digits:0>width$}", width = scale + 1);
        let (int, frac) = padded.split_at(padded.len() - scale);
        format!("{sign}{int}.{frac}")
    }

    proptest! {
        #[test]
        fn integer_order_and_arithmetic_match_i128(a in any::<i64>(), b in any::<i64>()) {
            let (da, db) = (d(&a.to_string()), d(&b.to_string()));
            prop_assert_eq!(da.cmp(&db), a.cmp(&b));
            prop_assert_eq!(da.add(&db).to_string(), (i128::from(a) + i128::from(b)).to_string());
            prop_assert_eq!(da.sub(&db).to_string(), (i128::from(a) - i128::from(b)).to_string());
        }

        #[test]
        fn decimal_order_matches_scaled_integers(
            a in any::<i64>(), sa in 0u32..12, b in any::<i64>(), sb in 0u32..12,
        ) {
            // a / 10^sa vs b / 10^sb, compared exactly by scaling both to the larger scale.
            let scale = sa.max(sb);
            let ia = i128::from(a) * 10i128.pow(scale - sa);
            let ib = i128::from(b) * 10i128.pow(scale - sb);
            let (ta, tb) = (decimal_text(a, sa), decimal_text(b, sb));
            prop_assert_eq!(d(&ta).cmp(&d(&tb)), ia.cmp(&ib), "{} vs {}", ta, tb);
            let sum = d(&ta).add(&d(&tb));
            prop_assert_eq!(sum, d(&decimal_text_i128(ia + ib, scale)));
        }

        #[test]
        fn canonical_text_round_trips(a in any::<i64>(), scale in 0u32..20, exp in -60i32..60) {
            let text = format!("{}e{exp}", decimal_text(a, scale));
            let once = d(&text);
            let canonical = once.to_string();
            prop_assert_eq!(d(&canonical).to_string(), canonical.clone());
            prop_assert_eq!(d(&canonical), once);
        }
    }

    proptest! {
        #[test]
        fn canonical_digits_recognizes_exactly_the_canonical_text(
            text in "[-+]?[0-9]{0,3}(\\.[0-9]{0,3})?([eE][-+]?[0-9]{1,3})?",
            big in "-?[1-9][0-9]{30,45}(\\.[0-9]{0,5}[1-9])?",
            small in "-?0\\.0{120,135}[1-9]{1,3}",
        ) {
            for text in [text, big, small] {
                let expected = Number::parse_checked(&text)
                    .ok()
                    .filter(|d| d.to_string() == text)
                    .map(|d| d.significant_digits());
                prop_assert_eq!(canonical_digits(&text), expected, "{}", text);
            }
        }
    }

    #[test]
    fn canonical_digits_on_edge_cases() {
        for (text, expected) in [
            ("0", Some(0)),
            ("-0", None),
            ("1", Some(1)),
            ("-129.99", Some(5)),
            ("1000", Some(1)),
            ("0.00012", Some(2)),
            ("1.50", None),
            ("1.", None),
            (".5", None),
            ("+1", None),
            ("01", None),
            ("1e3", None),
            ("", None),
            ("-", None),
            ("12345678901234567890123456789012345678", Some(38)),
            ("123456789012345678901234567890123456789", None),
        ] {
            assert_eq!(canonical_digits(text), expected, "{text}");
        }
        let max = "9".repeat(38) + &"0".repeat(88);
        assert_eq!(canonical_digits(&max), Some(38), "9.99..E+125");
        assert_eq!(canonical_digits(&(max + "0")), None, "1E+126 overflows");
        let min = format!("0.{}1", "0".repeat(129));
        assert_eq!(canonical_digits(&min), Some(1), "1E-130");
        assert_eq!(canonical_digits(&format!("0.{}1", "0".repeat(130))), None);
    }

    fn decimal_text_i128(mantissa: i128, scale: u32) -> String {
        let digits = mantissa.unsigned_abs().to_string();
        let sign = if mantissa < 0 { "-" } else { "" };
        let scale = scale as usize;
        let padded = format!("{digits:0>width$}", width = scale + 1);
        let (int, frac) = padded.split_at(padded.len() - scale);
        if frac.is_empty() {
            format!("{sign}{int}")
        } else {
            format!("{sign}{int}.{frac}")
        }
    }
}
