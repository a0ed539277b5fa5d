//! Column arithmetic the way it is done on paper: counting carries and borrows, the answers
//! of common column mistakes, and building operands digit by digit so that chosen columns
//! carry (or borrow) and the others do not.

use crate::dice::Dice;

/// The smallest and largest number with `digits` digits (1-digit operands start at 1, as a
/// 0 operand makes a trivial item).
pub(crate) fn digit_range(digits: u32) -> (u64, u64) {
    let hi = 10u64.pow(digits) - 1;
    let lo = if digits == 1 { 1 } else { 10u64.pow(digits - 1) };
    (lo, hi)
}

/// Columns (from the ones) whose sum, with the carry in, reaches 10.
pub(crate) fn add_carries(mut a: u64, mut b: u64) -> u32 {
    let (mut carry, mut count) = (0, 0);
    while a > 0 || b > 0 {
        carry = u64::from(a % 10 + b % 10 + carry >= 10);
        count += carry as u32;
        a /= 10;
        b /= 10;
    }
    count
}

/// Columns where the top digit, less the borrow in, is smaller than the bottom digit.
pub(crate) fn sub_borrows(mut a: u64, mut b: u64) -> u32 {
    let (mut borrow, mut count) = (0i64, 0);
    while a > 0 || b > 0 {
        let x = (a % 10) as i64 - (b % 10) as i64 - borrow;
        borrow = i64::from(x < 0);
        count += borrow as u32;
        a /= 10;
        b /= 10;
    }
    count
}

/// Digit products of the long multiplication `a × b` (each digit of `b` times each digit of
/// `a`, plus the carry in) that reach 10. The additions of the partial products are not
/// counted.
pub(crate) fn mul_carries(a: u64, mut b: u64) -> u32 {
    let mut count = 0;
    while b > 0 {
        let row = b % 10;
        let (mut rest, mut carry) = (a, 0);
        while rest > 0 {
            let p = row * (rest % 10) + carry;
            carry = p / 10;
            count += u32::from(p >= 10);
            rest /= 10;
        }
        b /= 10;
    }
    count
}

/// `a + b` computed column by column forgetting every carry (47 + 38 -> 75).
pub(crate) fn sum_ignoring_carries(a: u64, b: u64) -> u64 {
    column_by_column(a, b, |x, y| (x + y) % 10)
}

/// `a - b` computed by taking the smaller digit from the larger in every column
/// (52 - 38 -> 26).
pub(crate) fn smaller_from_larger(a: u64, b: u64) -> u64 {
    column_by_column(a, b, u64::abs_diff)
}

/// The number whose every digit is `digit` of the two operands' digits in that column,
/// with nothing carried between columns.
fn column_by_column(mut a: u64, mut b: u64, digit: impl Fn(u64, u64) -> u64) -> u64 {
    let (mut out, mut place) = (0, 1);
    while a > 0 || b > 0 {
        out += digit(a % 10, b % 10) * place;
        place *= 10;
        a /= 10;
        b /= 10;
    }
    out
}

/// `a × b` with every digit product's carry dropped (27 × 4 -> 88).
pub(crate) fn product_ignoring_carries(a: u64, mut b: u64) -> u64 {
    let (mut out, mut row_place) = (0u64, 1u64);
    while b > 0 {
        let row = b % 10;
        let (mut rest, mut place, mut partial) = (a, 1u64, 0u64);
        while rest > 0 {
            partial += row * (rest % 10) % 10 * place;
            place *= 10;
            rest /= 10;
        }
        out = out.saturating_add(partial.saturating_mul(row_place));
        row_place = row_place.saturating_mul(10);
        b /= 10;
    }
    out
}

pub(crate) fn reversed_digits(mut n: u64) -> u64 {
    let mut out = 0;
    while n > 0 {
        out = out * 10 + n % 10;
        n /= 10;
    }
    out
}

pub(crate) fn max_digit(mut n: u64) -> u64 {
    let mut m = 0;
    while n > 0 {
        m = m.max(n % 10);
        n /= 10;
    }
    m
}

/// A set of `k` distinct columns among the first `available`, as a bit mask.
pub(crate) fn pick_columns(dice: &mut Dice, available: u32, k: u32) -> u32 {
    let mut cols: [u32; 20] = std::array::from_fn(|i| i as u32);
    let n = available.min(20) as usize;
    let k = (k as usize).min(n);
    for i in 0..k {
        let j = i + dice.index(n - i);
        cols.swap(i, j);
    }
    cols[..k].iter().fold(0, |mask, c| mask | 1 << c)
}

/// Tries per column before choosing the digits directly: uniform pairs by rejection, with a
/// constructive pick as a bounded fallback.
const COLUMN_TRIES: u32 = 16;

/// Operands with `d1` and `d2` digits whose sum carries exactly in the columns of
/// `carries` (which must lie within the shorter operand's columns).
pub(crate) fn build_sum(dice: &mut Dice, d1: u32, d2: u32, carries: u32) -> (u64, u64) {
    let (mut a, mut b, mut place, mut cin) = (0u64, 0u64, 1u64, 0u32);
    for col in 0..d1.max(d2) {
        let lo_a = u32::from(col + 1 == d1);
        let lo_b = u32::from(col + 1 == d2);
        let (x, y) = match (col < d1, col < d2) {
            (true, true) => {
                let want = carries & (1 << col) != 0;
                let fits = |x: u32, y: u32| (x + y + cin >= 10) == want;
                let mut pair = None;
                for _ in 0..COLUMN_TRIES {
                    let (x, y) = (dice.digit(lo_a, 9), dice.digit(lo_b, 9));
                    if fits(x, y) {
                        pair = Some((x, y));
                        break;
                    }
                }
                pair.unwrap_or_else(|| {
                    if want {
                        let x = dice.digit(lo_a.max(1 - cin), 9);
                        (x, dice.digit(lo_b.max(10 - cin - x), 9))
                    } else {
                        let x = dice.digit(lo_a, 9 - cin - lo_b);
                        (x, dice.digit(lo_b, 9 - cin - x))
                    }
                })
            }
            // A column of the longer operand alone never carries.
            (true, false) => (dice.digit(lo_a, 9 - cin), 0),
            (false, _) => (0, dice.digit(lo_b, 9 - cin)),
        };
        cin = u32::from(x + y + cin >= 10);
        a += u64::from(x) * place;
        b += u64::from(y) * place;
        place *= 10;
    }
    (a, b)
}

/// `a` (`d1` digits) and `b` (`d2 <= d1` digits, `b <= a`) whose difference borrows exactly
/// in the columns of `borrows` (within `b`'s columns, and not the top one when `d1 == d2`).
pub(crate) fn build_difference(dice: &mut Dice, d1: u32, d2: u32, borrows: u32) -> (u64, u64) {
    let (mut a, mut b, mut place, mut bin) = (0u64, 0u64, 1u64, 0u32);
    for col in 0..d1 {
        let lo_a = u32::from(col + 1 == d1);
        let lo_b = u32::from(col + 1 == d2);
        let (x, y) = if col < d2 {
            let want = borrows & (1 << col) != 0;
            let fits = |x: u32, y: u32| (x < y + bin) == want;
            let mut pair = None;
            for _ in 0..COLUMN_TRIES {
                let (x, y) = (dice.digit(lo_a, 9), dice.digit(lo_b, 9));
                if fits(x, y) {
                    pair = Some((x, y));
                    break;
                }
            }
            pair.unwrap_or_else(|| {
                if want {
                    let y = dice.digit(lo_b.max(lo_a + 1 - bin), 9);
                    (dice.digit(lo_a, y + bin - 1), y)
                } else {
                    let x = dice.digit(lo_a.max(lo_b + bin), 9);
                    (x, dice.digit(lo_b, x - bin))
                }
            })
        } else {
            // Above `b`'s digits: never borrow, so the difference keeps its length.
            (dice.digit(lo_a.max(bin), 9), 0)
        };
        bin = u32::from(x < y + bin);
        a += u64::from(x) * place;
        b += u64::from(y) * place;
        place *= 10;
    }
    (a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_carries_and_borrows_as_on_paper() {
        assert_eq!(add_carries(42, 35), 0);
        assert_eq!(add_carries(47, 38), 1);
        assert_eq!(add_carries(95, 17), 2);
        assert_eq!(add_carries(999, 1), 3);
        assert_eq!(sub_borrows(85, 23), 0);
        assert_eq!(sub_borrows(52, 38), 1);
        assert_eq!(sub_borrows(503, 178), 2);
        assert_eq!(mul_carries(23, 3), 0);
        assert_eq!(mul_carries(23, 4), 1);
        assert_eq!(mul_carries(7, 8), 1);
        assert_eq!(mul_carries(99, 9), 2);
    }

    #[test]
    fn mistakes_as_learners_make_them() {
        assert_eq!(sum_ignoring_carries(47, 38), 75);
        assert_eq!(smaller_from_larger(52, 38), 26);
        assert_eq!(product_ignoring_carries(27, 4), 88);
        assert_eq!(reversed_digits(85), 58);
        assert_eq!(reversed_digits(120), 21);
        assert_eq!(max_digit(3907), 9);
    }

    #[test]
    fn built_sums_carry_exactly_where_asked() {
        let mut dice = Dice::new(5, 5);
        for (d1, d2) in [(1, 1), (2, 2), (3, 2), (2, 3), (4, 4), (9, 9)] {
            let (lo1, hi1) = digit_range(d1);
            let (lo2, hi2) = digit_range(d2);
            for k in 0..=d1.min(d2) {
                for _ in 0..200 {
                    let mask = pick_columns(&mut dice, d1.min(d2), k);
                    let (a, b) = build_sum(&mut dice, d1, d2, mask);
                    assert!((lo1..=hi1).contains(&a) && (lo2..=hi2).contains(&b), "{a} {b}");
                    assert_eq!(add_carries(a, b), k, "{a} + {b}");
                }
            }
        }
    }

    #[test]
    fn built_differences_borrow_exactly_where_asked() {
        let mut dice = Dice::new(6, 6);
        for (d1, d2) in [(1, 1), (2, 1), (2, 2), (3, 2), (3, 3), (9, 9)] {
            let (lo1, hi1) = digit_range(d1);
            let (lo2, hi2) = digit_range(d2);
            let columns = if d1 > d2 { d2 } else { d2 - 1 };
            for k in 0..=columns {
                for _ in 0..200 {
                    let mask = pick_columns(&mut dice, columns, k);
                    let (a, b) = build_difference(&mut dice, d1, d2, mask);
                    assert!((lo1..=hi1).contains(&a) && (lo2..=hi2).contains(&b), "{a} {b}");
                    assert!(a >= b, "{a} - {b}");
                    assert_eq!(sub_borrows(a, b), k, "{a} - {b}");
                }
            }
        }
    }
}
