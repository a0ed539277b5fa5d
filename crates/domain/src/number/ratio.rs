//! Exact rational numbers for answers (fractions, equation solutions), always in lowest
//! terms with a positive denominator, so equal values have equal text.

use std::cmp::Ordering;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ratio {
    num: i64,
    den: i64,
}

pub fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}

impl Ratio {
    pub fn int(n: i64) -> Ratio {
        Ratio { num: n, den: 1 }
    }

    /// `None` for a zero denominator or a value that does not fit in `i64` parts.
    pub fn new(num: i64, den: i64) -> Option<Ratio> {
        Ratio::wide(i128::from(num), i128::from(den))
    }

    fn wide(num: i128, den: i128) -> Option<Ratio> {
        if den == 0 {
            return None;
        }
        let (mut a, mut b) = (num.unsigned_abs(), den.unsigned_abs());
        while b != 0 {
            (a, b) = (b, a % b);
        }
        let g = a.max(1) as i128;
        let sign = if den < 0 { -1 } else { 1 };
        let (num, den) = (sign * num / g, sign * den / g);
        Some(Ratio { num: i64::try_from(num).ok()?, den: i64::try_from(den).ok()? })
    }

    pub fn num(self) -> i64 {
        self.num
    }

    pub fn den(self) -> i64 {
        self.den
    }

    pub fn is_integer(self) -> bool {
        self.den == 1
    }

    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    pub fn checked_add(self, o: Ratio) -> Option<Ratio> {
        let (a, b, c, d) = (self.num as i128, self.den as i128, o.num as i128, o.den as i128);
        Ratio::wide(a * d + c * b, b * d)
    }

    pub fn checked_sub(self, o: Ratio) -> Option<Ratio> {
        self.checked_add(Ratio { num: o.num.checked_neg()?, den: o.den })
    }

    pub fn checked_mul(self, o: Ratio) -> Option<Ratio> {
        Ratio::wide(self.num as i128 * o.num as i128, self.den as i128 * o.den as i128)
    }

    pub fn checked_div(self, o: Ratio) -> Option<Ratio> {
        Ratio::wide(self.num as i128 * o.den as i128, self.den as i128 * o.num as i128)
    }

    pub fn recip(self) -> Option<Ratio> {
        Ratio::new(self.den, self.num)
    }

    pub fn checked_neg(self) -> Option<Ratio> {
        Some(Ratio { num: self.num.checked_neg()?, den: self.den })
    }
}

impl Ord for Ratio {
    fn cmp(&self, o: &Ratio) -> Ordering {
        (self.num as i128 * o.den as i128).cmp(&(o.num as i128 * self.den as i128))
    }
}

impl PartialOrd for Ratio {
    fn partial_cmp(&self, o: &Ratio) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl fmt::Display for Ratio {
    /// `3`, `-3/2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: i64, d: i64) -> Ratio {
        Ratio::new(n, d).unwrap()
    }

    #[test]
    fn values_are_kept_in_lowest_terms_with_the_sign_on_top() {
        assert_eq!(r(2, 4), r(1, 2));
        assert_eq!(r(3, -6).to_string(), "-1/2");
        assert_eq!(r(-4, -2).to_string(), "2");
        assert_eq!(r(0, -5).to_string(), "0");
        assert!(Ratio::new(1, 0).is_none());
    }

    #[test]
    fn arithmetic_is_exact() {
        assert_eq!(r(1, 2).checked_add(r(1, 3)).unwrap(), r(5, 6));
        assert_eq!(r(1, 2).checked_sub(r(1, 3)).unwrap(), r(1, 6));
        assert_eq!(r(2, 3).checked_mul(r(3, 4)).unwrap(), r(1, 2));
        assert_eq!(r(2, 3).checked_div(r(4, 3)).unwrap(), r(1, 2));
        assert_eq!(r(-2, 3).recip().unwrap(), r(-3, 2));
        assert!(r(0, 1).recip().is_none());
        assert!(r(1, 3) < r(1, 2));
        assert!(Ratio::int(i64::MAX).checked_add(Ratio::int(1)).is_none());
    }
}
