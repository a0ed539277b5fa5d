//! The keys of drafted drills and questions are the material's terms, on real notes of three
//! topics: every key is one of the terms the notes are about (lists written here by hand),
//! never filler or the course's title word, each asked once per unit, and the notes' central
//! terms are asked.

use pathwise_course::recall::{recall, RecallPassage, UnitRecall};
use std::collections::HashSet;

/// The notes' sections as units, each paragraph a passage: what a draft hands to `recall`.
fn drafted(title: &str, markdown: &str) -> (Vec<String>, Vec<UnitRecall>) {
    let sections: Vec<(String, Vec<String>)> = markdown
        .split("\n## ")
        .map(|section| {
            let (heading, body) = section.split_once('\n').unwrap_or((section, ""));
            let paragraphs = body.split("\n\n").map(str::trim).filter(|p| !p.is_empty()).map(String::from).collect();
            (heading.trim_start_matches('#').trim().to_string(), paragraphs)
        })
        .collect();
    let passages: Vec<RecallPassage<'_>> = sections
        .iter()
        .enumerate()
        .flat_map(|(unit, (_, paragraphs))| paragraphs.iter().map(move |text| RecallPassage { unit, text }))
        .collect();
    let titles: Vec<&str> = sections.iter().map(|(t, _)| t.as_str()).collect();
    let drafted = recall(title, sections.len(), &titles, &passages, 3);
    (titles.iter().map(|t| t.to_string()).collect(), drafted)
}

/// Every key drafted, per unit, lowercase.
fn keys(drafted: &[UnitRecall]) -> Vec<Vec<String>> {
    drafted
        .iter()
        .map(|unit| {
            let questions = unit.questions.iter().map(|q| q.cloze.term.to_lowercase());
            questions.chain(unit.drills.iter().map(|d| d.term.to_lowercase())).collect()
        })
        .collect()
}

/// Words no blank may ask for, whatever the notes.
const FILLER: &[&str] = &[
    "mostly",
    "whichever",
    "process",
    "limited",
    "turns",
    "thickest",
    "left",
    "almost",
    "nearly",
    "sharply",
    "quickly",
    "first",
    "last",
    "every",
    "each",
    "longer",
    "smaller",
    "fewer",
    "therefore",
    "always",
    "himself",
];

fn check(title: &str, markdown: &str, terms: &[&str], central: &[&str]) {
    let (units, drafted) = drafted(title, markdown);
    let title_words: HashSet<String> = title.split_whitespace().map(str::to_lowercase).collect();
    let all = keys(&drafted);
    for (unit, keys) in units.iter().zip(&all) {
        assert!(drafted[units.iter().position(|u| u == unit).unwrap()].drills.len() >= 2, "{unit}: drills to practise");
        let distinct: HashSet<&String> = keys.iter().collect();
        assert_eq!(distinct.len(), keys.len(), "{unit}: each key once: {keys:?}");
        for key in keys {
            assert!(
                terms.contains(&key.as_str()),
                "{title} > {unit}: {key:?} is not one of the notes' terms ({keys:?})"
            );
            assert!(!FILLER.contains(&key.as_str()), "{key:?} is filler");
            assert!(!title_words.contains(key), "{key:?} is the course's title word");
        }
    }
    // A sentence that names its unit by the whole title does not blank a word of it: the
    // rest of the title, the unit's name on the card, would give it away.
    for (unit, recall) in units.iter().zip(&drafted) {
        let title: Vec<String> = unit.split_whitespace().map(str::to_lowercase).filter(|w| w.len() >= 4).collect();
        let clozes = recall.questions.iter().map(|q| &q.cloze).chain(&recall.drills);
        for cloze in clozes.filter(|_| title.len() >= 2) {
            let sentence = cloze.sentence.to_lowercase();
            let named = title.iter().all(|w| sentence.contains(w.as_str()));
            assert!(
                !named || !title.contains(&cloze.term.to_lowercase()),
                "{unit}: {:?} blanks the unit's own title in {:?}",
                cloze.term,
                cloze.sentence
            );
        }
    }
    let asked: HashSet<&str> = all.iter().flatten().map(String::as_str).collect();
    for term in central {
        assert!(asked.contains(term), "{title}: {term:?} is never asked ({asked:?})");
    }
}

#[test]
fn photosynthesis_notes_ask_for_their_terms() {
    check(
        "Photosynthesis",
        include_str!("../../app/tests/fixtures/photosynthesis.md"),
        &[
            "light",
            "energy",
            "chemical",
            "plants",
            "algae",
            "bacteria",
            "carbon",
            "dioxide",
            "water",
            "glucose",
            "oxygen",
            "food",
            "chloroplasts",
            "organelles",
            "leaves",
            "cells",
            "thylakoids",
            "thylakoid",
            "stroma",
            "membranes",
            "chlorophyll",
            "pigment",
            "green",
            "red",
            "blue",
            "palisade",
            "layer",
            "surface",
            "reactions",
            "molecules",
            "hydrogen",
            "ions",
            "electrons",
            "photolysis",
            "transport",
            "chain",
            "space",
            "synthase",
            "atp",
            "nadp",
            "nadph",
            "calvin",
            "cycle",
            "sugar",
            "enzyme",
            "rubisco",
            "rubp",
            "g3p",
            "five-carbon",
            "products",
            "six",
            "rate",
            "intensity",
            "concentration",
            "temperature",
            "factor",
            "supply",
            "enzymes",
            "degrees",
            "celsius",
            "greenhouses",
            "growers",
            "40",
            "split",
            "fluid",
            "earth",
            "stacks",
            "discs",
            "light-dependent",
            "fixes",
            "denature",
            "regenerate",
            "limiting",
        ],
        &["thylakoids", "stroma", "nadph"],
    );
}

#[test]
fn subnetting_notes_ask_for_their_terms() {
    check(
        "Subnetting",
        include_str!("fixtures/subnetting.md"),
        &[
            "ipv4",
            "address",
            "addresses",
            "bits",
            "octets",
            "decimal",
            "network",
            "host",
            "hosts",
            "mask",
            "subnet",
            "255.255.255.0",
            "24",
            "8",
            "/24",
            "prefix",
            "ones",
            "broadcast",
            "254",
            "usable",
            "32",
            "192.168.1.0/24",
            "192.168.1.255",
            "router",
            "packets",
            "subnets",
            "routing",
            "table",
            "route",
            "destination",
            "hop",
            "longest",
            "matching",
            "part",
            "length",
            "dotted",
            "mask,",
        ],
        &["mask", "prefix", "broadcast"],
    );
}

#[test]
fn history_notes_ask_for_their_terms() {
    check(
        "The French Revolution",
        include_str!("fixtures/revolution.md"),
        &[
            "1789",
            "monarchy",
            "louis",
            "xvi",
            "liberty",
            "equality",
            "fraternity",
            "europe",
            "absolute",
            "bankrupt",
            "wars",
            "bread",
            "prices",
            "harvests",
            "third",
            "estate",
            "commoners",
            "taxes",
            "clergy",
            "nobility",
            "enlightenment",
            "writers",
            "rousseau",
            "voltaire",
            "divine",
            "kings",
            "pamphlets",
            "salons",
            "ideas",
            "estates-general",
            "national",
            "assembly",
            "deputies",
            "tennis",
            "court",
            "oath",
            "constitution",
            "hall",
            "1793",
            "committee",
            "public",
            "safety",
            "robespierre",
            "terror",
            "guillotine",
            "enemies",
            "executed",
            "1794",
            "july",
            "may",
            "france",
            "thousands",
            "arrested",
            "suspected",
            "right",
        ],
        &["robespierre", "terror", "estates-general"],
    );
}
