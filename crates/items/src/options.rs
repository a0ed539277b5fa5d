//! Multiple-choice options: the key and distractors from the blueprint's strategies, all
//! distinct, shuffled by the seed.

use crate::answer::value::Value;
use crate::dice::Dice;
use crate::generators::Answered;

/// How far along the endless fallback run to look for distinct wrong answers.
const FALLBACK_LIMIT: u32 = 512;

/// The options as text and the index of the key among them, or the number of distinct
/// options that could be made when it is fewer than `count`.
///
/// Each strategy gives its first candidate that is new; the candidates strategies gave
/// beyond their first fill remaining places next, in order, and the generator's fallback
/// run after that, so the result depends only on the question and the dice.
pub(crate) fn build<Q: Answered>(
    question: &Q,
    strategies: &[&'static str],
    count: usize,
    dice: &mut Dice,
) -> Result<(Vec<String>, usize), usize> {
    let mut chosen: Vec<Value> = Vec::with_capacity(count);
    chosen.push(question.key());
    let mut spare: Vec<Value> = Vec::new();
    let mut candidates: Vec<Value> = Vec::with_capacity(4);
    for strategy in strategies {
        if chosen.len() == count {
            break;
        }
        candidates.clear();
        question.distractors(strategy, dice, &mut candidates);
        let mut took = false;
        for v in candidates.drain(..) {
            if chosen.contains(&v) {
                continue;
            }
            if took {
                spare.push(v);
            } else {
                chosen.push(v);
                took = true;
            }
        }
    }
    for v in spare {
        if chosen.len() == count {
            break;
        }
        if !chosen.contains(&v) {
            chosen.push(v);
        }
    }
    let mut k = 0;
    while chosen.len() < count && k < FALLBACK_LIMIT {
        if let Some(v) = question.fallback(k).filter(|v| !chosen.contains(v)) {
            chosen.push(v);
        }
        k += 1;
    }
    if chosen.len() < count {
        return Err(chosen.len());
    }
    let mut order: Vec<usize> = (0..count).collect();
    dice.shuffle(&mut order);
    let key_at = order.iter().position(|&i| i == 0).unwrap_or(0);
    let options = order.iter().map(|&i| chosen[i].to_string()).collect();
    Ok((options, key_at))
}
