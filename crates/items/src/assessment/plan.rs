//! Turning an assessment into items: a whole form (fixed or random), or a pool of
//! candidates for adaptive selection.

use super::{Assessment, Selection};
use crate::band::{Band, Target};
use crate::blueprint::{Blueprint, Skills};
use crate::dice::{mix, Dice};
use crate::error::ItemError;
use crate::generate::SessionItems;
use crate::item::Item;
use crate::stable_hash::fnv1a64;

/// A place items of a band can come from.
#[derive(Clone, Copy)]
enum Source<'a> {
    Skill(&'a Blueprint),
    Pool(&'a Item),
}

fn planning(assessment: &Assessment, problem: String) -> ItemError {
    ItemError::Planning { assessment_id: assessment.id().to_string(), problem }
}

/// The items of a form, section by section and within a section easy, medium then hard,
/// all different. A fixed form is the same for every `seed`; a random one is drawn anew
/// per seed. Skills of a section take turns (in an order drawn from the seed) and pool
/// items are used at most once.
pub fn plan_form(assessment: &Assessment, library: &impl Skills, seed: u64) -> Result<Vec<Item>, ItemError> {
    let seed = match assessment.selection() {
        Selection::Fixed => fnv1a64(assessment.id().as_bytes()),
        Selection::RandomFromPool => seed,
        Selection::Adaptive => {
            return Err(planning(
                assessment,
                "is adaptive: its items are chosen one at a time; take candidates from adaptive_candidates".into(),
            ))
        }
    };
    let mut session = SessionItems::new();
    let mut items = Vec::with_capacity(assessment.total_items());
    for (s, section) in assessment.spec().sections.iter().enumerate() {
        let distribution = section.difficulty_distribution.unwrap_or_default();
        let skills: Vec<&Blueprint> = section.skill_blueprints.iter().filter_map(|id| library.skill(id)).collect();
        for (b, band) in Band::ALL.into_iter().enumerate() {
            let wanted = distribution.count(band);
            if wanted == 0 {
                continue;
            }
            let mut dice = Dice::new(mix(seed, s as u64), b as u64);
            let mut sources: Vec<Source> =
                skills.iter().filter(|k| k.can_produce(band)).map(|k| Source::Skill(k)).collect();
            sources.extend(assessment.pools[s].iter().filter(|i| i.band() == band).map(Source::Pool));
            dice.shuffle(&mut sources);
            for slot in 0..wanted {
                let item = draw(&sources, slot, band, &mut dice, &mut session).ok_or_else(|| {
                    planning(
                        assessment,
                        format!(
                            "section '{}' ran out of new {band} items after {slot} of {wanted}",
                            section.section_id
                        ),
                    )
                })?;
                items.push(item);
            }
        }
    }
    Ok(items)
}

/// The next item of a band: sources take turns from `slot` on; a pool item counts once, a
/// skill is skipped when it has nothing new left.
fn draw(sources: &[Source], slot: usize, band: Band, dice: &mut Dice, session: &mut SessionItems) -> Option<Item> {
    let seed = dice.next_u64();
    (0..sources.len()).find_map(|k| match sources[(slot + k) % sources.len()] {
        Source::Pool(item) => session.insert(item).then(|| item.clone()),
        Source::Skill(skill) => session.generate(skill, seed, Target::Band(band)).ok(),
    })
}

/// Candidates for adaptive selection: `per_blueprint` items of every skill of every
/// section, their targets cycling through the skill's factors so that they span its
/// difficulties, plus every pool item; all different. A skill that runs out of new items
/// at some factor gives fewer. The caller selects among them by `item.irt`.
pub fn adaptive_candidates(
    assessment: &Assessment,
    library: &impl Skills,
    seed: u64,
    per_blueprint: usize,
) -> Result<Vec<Item>, ItemError> {
    let mut session = SessionItems::new();
    let mut items = Vec::new();
    for (s, section) in assessment.spec().sections.iter().enumerate() {
        for (k, id) in section.skill_blueprints.iter().enumerate() {
            let skill = library.skill(id).ok_or_else(|| ItemError::UnknownSkill { skill_id: id.clone() })?;
            let weights: Vec<f64> = skill.factors().map(|(_, w)| w).collect();
            let mut exhausted = vec![false; weights.len()];
            let mut dice = Dice::new(mix(seed, s as u64), k as u64);
            for i in 0..per_blueprint {
                let f = i % weights.len();
                if exhausted[f] {
                    continue;
                }
                match session.generate(skill, dice.next_u64(), Target::difficulty(weights[f])?) {
                    Ok(item) => items.push(item),
                    Err(ItemError::SpaceExhausted { .. }) => exhausted[f] = true,
                    Err(e) => return Err(e),
                }
            }
        }
        for item in &assessment.pools[s] {
            if session.insert(item) {
                items.push(item.clone());
            }
        }
    }
    Ok(items)
}
