//! Help for a learner who is stuck, new each time: a ladder per unit whose rungs are another
//! passage of the unit (never a sentence the thread already showed), a worked example
//! (computed where the unit has a blueprint, else an example the material gives), the slip to
//! watch for (the unit's misconceptions, else a sentence of the material that warns), and
//! then the idea of the prerequisite it builds on. Each card climbs one rung past the ones
//! the thread showed lately; a rung with nothing new to say is passed over.

use crate::answer::{unit_material as material, word_count, Said};
use crate::card::{Source, WorkedExample};
use crate::course::Course;
use crate::shown::{Shown, SLIP};

/// A rung of the ladder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rung {
    Passage,
    Example,
    Slip,
    Prerequisite,
}

impl Rung {
    pub const LADDER: [Rung; 4] = [Rung::Passage, Rung::Example, Rung::Slip, Rung::Prerequisite];
}

/// What a help card shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Help {
    pub rung: Rung,
    /// What the tutor says before the card.
    pub lead: String,
    pub key_ideas: Vec<String>,
    pub worked_example: Option<WorkedExample>,
    pub sources: Vec<Source>,
}

/// Words that introduce an example in running text.
const EXAMPLE_CUES: &[&str] = &["for example", "for instance", "e.g.", "such as", "imagine", "suppose", "say you"];
/// Words that warn: a sentence with one says what a learner might get wrong.
const SLIP_CUES: &[&str] = &[
    " not ",
    "n't ",
    " never ",
    " rather than ",
    " instead of ",
    "mistake",
    "careful",
    "remember",
    " only ",
    " unlike ",
    " without ",
    "common error",
    "trap",
];

/// The next rung of `unit`'s ladder for this thread, starting at `first` when the learner
/// asked for one kind of help (an example, a hint), else past the rungs shown lately.
/// `computed` is a worked example from the unit's blueprints, when it has any. `None` when
/// no rung has anything the thread has not shown.
pub fn next_rung(
    course: &Course,
    unit: &str,
    shown: &Shown,
    first: Option<Rung>,
    computed: Option<WorkedExample>,
    budget_words: usize,
) -> Option<Help> {
    let spec = course.unit(unit)?;
    let start = match first {
        Some(rung) => Rung::LADDER.iter().position(|r| *r == rung).unwrap_or(0),
        // The rung after the one shown last; the ladder starts over past the top.
        None => shown
            .last_rung(unit)
            .map_or(0, |last| (Rung::LADDER.iter().position(|r| *r == last).unwrap_or(0) + 1) % Rung::LADDER.len()),
    };
    let own = material(course, unit);
    let fresh: Vec<&Said> = own.iter().filter(|s| !shown.has_sentence(&s.text)).collect();
    let cite = |said: &[&Said]| -> Vec<Source> {
        let mut out: Vec<Source> = Vec::new();
        for s in said {
            if let Some(source) = s.chunk.and_then(|c| course.source_at(c)) {
                if !out.contains(&source) {
                    out.push(source);
                }
            }
        }
        out
    };
    let title = &spec.title;
    let climbed =
        (0..Rung::LADDER.len()).map(|i| Rung::LADDER[(start + i) % Rung::LADDER.len()]).find_map(|rung| match rung {
            Rung::Passage => {
                let mut words = 0;
                let mut chosen: Vec<&Said> = Vec::new();
                for said in fresh.iter().filter(|s| !is_example(&s.text)) {
                    if !chosen.is_empty() && words + word_count(&said.text) > budget_words.min(60) {
                        break;
                    }
                    words += word_count(&said.text);
                    chosen.push(said);
                    if chosen.len() == 2 {
                        break;
                    }
                }
                (!chosen.is_empty()).then(|| Help {
                    rung,
                    lead: format!("Let's look at {title} from another side."),
                    key_ideas: chosen.iter().map(|s| s.text.clone()).collect(),
                    worked_example: None,
                    sources: cite(&chosen),
                })
            }
            Rung::Example => {
                if let Some(example) = computed.clone().filter(|_| !shown.example_shown(unit)) {
                    let idea = fresh.iter().find(|s| !is_example(&s.text));
                    return Some(Help {
                        rung,
                        lead: format!("Here is one worked through, on {title}."),
                        key_ideas: idea.map(|s| vec![s.text.clone()]).unwrap_or_default(),
                        sources: idea.map(|s| cite(&[*s])).unwrap_or_default(),
                        worked_example: Some(example),
                    });
                }
                let example = fresh.iter().find(|s| is_example(&s.text))?;
                Some(Help {
                    rung,
                    lead: format!("Here is an example from your material on {title}."),
                    key_ideas: vec![example.text.clone()],
                    worked_example: None,
                    sources: cite(&[*example]),
                })
            }
            Rung::Slip => {
                let authored: Vec<String> = spec
                    .misconceptions
                    .iter()
                    .map(|m| format!("{SLIP}{}", ensure_period(m)))
                    .filter(|m| !shown.has_sentence(m))
                    .take(2)
                    .collect();
                if !authored.is_empty() {
                    return Some(Help {
                        rung,
                        lead: format!("Here is the slip to watch for in {title}."),
                        key_ideas: authored,
                        worked_example: None,
                        sources: Vec::new(),
                    });
                }
                let warning = fresh.iter().find(|s| is_warning(&s.text))?;
                Some(Help {
                    rung,
                    lead: format!("Here is the slip to watch for in {title}."),
                    key_ideas: vec![format!("{SLIP}{}", warning.text)],
                    worked_example: None,
                    sources: cite(&[*warning]),
                })
            }
            Rung::Prerequisite => {
                let prerequisite = course.prerequisites(unit).iter().find_map(|p| course.unit(p))?;
                let theirs = material(course, &prerequisite.id);
                let idea = theirs.iter().find(|s| !shown.has_sentence(&s.text) && !is_example(&s.text))?;
                Some(Help {
                    rung,
                    lead: format!(
                        "{title} builds on {}. Here is its key idea again, the step before this one.",
                        prerequisite.title
                    ),
                    key_ideas: vec![idea.text.clone()],
                    worked_example: None,
                    sources: cite(&[idea]),
                })
            }
        });
    match climbed {
        // Asked for an example the material does not give: the nearest help, saying so.
        Some(mut help) if first == Some(Rung::Example) && help.rung != Rung::Example => {
            help.lead = format!("Your material gives no example of {title}. {}", help.lead);
            Some(help)
        }
        Some(help) => Some(help),
        // Everything was shown lately: the unit's material once more, all together, as a
        // tutor would sum it up.
        None => {
            let mut words = 0;
            let all: Vec<&Said> = own
                .iter()
                .take_while(|s| {
                    words += word_count(&s.text);
                    words <= budget_words.min(80)
                })
                .collect();
            let all = if all.is_empty() { own.iter().take(1).collect() } else { all };
            let lead = format!("That is everything your material says about {title}; here it is together.");
            // Shown together once already: nothing is left to say that would be new.
            if all.is_empty() || shown.has_sentence(&lead) {
                return None;
            }
            Some(Help {
                rung: Rung::Passage,
                lead,
                key_ideas: all.iter().map(|s| s.text.clone()).collect(),
                worked_example: None,
                sources: cite(&all),
            })
        }
    }
}

fn is_example(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    EXAMPLE_CUES.iter().any(|c| lower.contains(c))
}

fn is_warning(sentence: &str) -> bool {
    let lower = format!(" {} ", sentence.to_lowercase());
    SLIP_CUES.iter().any(|c| lower.contains(c))
}

fn ensure_period(text: &str) -> String {
    let text = text.trim();
    if text.ends_with(['.', '?', '!']) {
        text.to_string()
    } else {
        format!("{text}.")
    }
}
