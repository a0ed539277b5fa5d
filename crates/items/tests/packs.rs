//! Course packs: loading from TOML and JSON, merging into a library, and the errors a
//! course author sees.

mod support;

use pathwise_items::{Band, Library, PackError, PackFormat, Target};

/// A valid skill; `{extra}` is spliced into its table, `{presentation}` into its
/// presentation table.
fn skill(id: &str, extra: &str, presentation: &str) -> String {
    format!(
        r#"
[[skills]]
skill_id = "{id}"
domain = "Mathematics > Arithmetic > Addition"
skill_statement = "Add two 2-digit numbers"
cognitive_level = "Apply"
generator = {{ kind = "arithmetic", operation = "add", digits = [2, 2] }}
{extra}
[skills.presentation]
item_type = "multiple_choice"
option_count = 4
distractor_strategies = ["off_by_10", "off_by_1"]
stem_templates = ["What is {{op1}} + {{op2}}?"]
{presentation}
"#
    )
}

fn add_error(text: &str) -> String {
    let mut library = Library::builtin();
    let before = library.skills().count();
    let err = library.add_pack(text, PackFormat::Toml).unwrap_err().to_string();
    assert_eq!(library.skills().count(), before, "nothing is added from a refused pack");
    err
}

#[test]
fn a_user_pack_merges_and_its_assessments_use_builtin_skills() {
    let mut library = Library::builtin();
    let text = skill("SCHOOL.ADD.2DIGIT", "", "")
        + r#"
[[assessments]]
assessment_id = "SCHOOL-QUIZ"
title = "Class quiz"
time_limit_minutes = 15
selection = "fixed"

[[assessments.sections]]
section_id = "mixed"
skill_domain = "Arithmetic"
item_count = 4
skill_blueprints = ["SCHOOL.ADD.2DIGIT", "MATH.ARITH.SUB.2DIGIT"]
difficulty_distribution = { easy = 2, medium = 2 }

[[assessments.sections.pool]]
stem = "What is 2 + 2?"
options = ["3", "4", "5"]
correct = 1
difficulty = 0.2
"#;
    let summary = library.add_pack(&text, PackFormat::Toml).unwrap();
    assert!(matches!(
        library
            .clone()
            .add_pack(&skill("S.B", "", "").replace("option_count = 4", "option_count = 1"), PackFormat::Toml),
        Err(PackError::Skill { index: 0, .. })
    ));
    assert_eq!((summary.skills, summary.assessments), (1, 1));
    let form = library.plan_form("SCHOOL-QUIZ", 1).unwrap();
    assert_eq!(form.len(), 4);
    form.iter().for_each(support::assert_sound);
    for item in &form {
        assert_eq!(library.regenerate(&item.id).unwrap(), *item, "{}", item.id);
    }
    // The same pack again clashes with itself, by id.
    let err = library.add_pack(&text, PackFormat::Toml).unwrap_err().to_string();
    assert_eq!(err, "skills[0]: skill id 'SCHOOL.ADD.2DIGIT' is already taken in the library");
}

#[test]
fn json_packs_load_like_toml_ones() {
    let json = r#"{
      "name": "json pack",
      "skills": [{
        "skill_id": "J.FRAC",
        "domain": "Fractions",
        "skill_statement": "Add fractions",
        "cognitive_level": "apply",
        "generator": { "kind": "fraction", "operation": "add" },
        "difficulty_factors": { "same_denominator": 0.2, "unrelated_denominators": { "weight": 0.8, "constraint": "coprime" } },
        "presentation": { "item_type": "free_text", "stem_templates": ["{f1} + {f2} = ?"] },
        "evaluation": { "method": "equivalent_forms" }
      }]
    }"#;
    let mut library = Library::new();
    library.add_pack(json, PackFormat::Json).unwrap();
    let item = library.generate("J.FRAC", 3, Target::Band(Band::Hard)).unwrap();
    support::assert_sound(&item);
    assert_eq!(item.generation_params["factor"], "unrelated_denominators");
    assert_eq!(item.difficulty, 0.8);
}

#[test]
fn a_misspelt_field_is_named_with_its_position() {
    let err = add_error(&skill("X.A", "", "").replace("option_count", "opton_count"));
    assert!(err.contains("opton_count") && err.contains("line"), "{err}");
    let err = add_error(&skill("X.A", "time_limit = 30", ""));
    assert!(err.contains("unknown field `time_limit`") && err.contains("time_limit_seconds"), "{err}");
    let err = add_error(&skill("X.A", "", "").replace("digits = [2, 2]", "digts = [2, 2]"));
    assert!(err.contains("digts"), "{err}");
    let err = add_error(&skill("X.A", "", "").replace("kind = \"arithmetic\"", "kind = \"geometry\""));
    assert!(err.contains("geometry") && err.contains("linear_equation"), "{err}");
    let err = Library::new().add_pack("{\"skills\": [{\"skil_id\": 1}]}", PackFormat::Json).unwrap_err().to_string();
    assert!(err.starts_with("JSON pack does not parse") && err.contains("skil_id") && err.contains("line 1"), "{err}");
}

#[test]
fn blueprint_problems_say_what_is_allowed() {
    let cases: Vec<(String, &str)> = vec![
        (skill("X.A", "", "").replace("option_count = 4", "option_count = 9"), "skills[0]: skill 'X.A': option_count 9 is out of range; allowed: 2-6"),
        (skill("X.A", "", "").replace("What is {op1} + {op2}?", "What is {op1} + {op3}?"), "stem_templates[0] uses {op3}; placeholders of arithmetic (add): {op1}, {op2}, {symbol}"),
        (skill("X.A", "", "").replace("\"off_by_1\"", "\"broadcast_address\""), "distractor strategy 'broadcast_address' is not known for arithmetic (add); allowed: off_by_1, off_by_10"),
        (skill("X.A", "difficulty_factors = { triple_carry = 0.9 }", ""), "difficulty factor 'triple_carry' is not known for arithmetic (add); allowed: no_carry, single_carry, double_carry, multiple_carries"),
        (skill("X.A", "difficulty_factors = { multiple_carries = 0.9 }", ""), "difficulty factor 'multiple_carries' cannot occur: digits [2, 2] give at most 2 columns that can carry; this factor needs 3"),
        (skill("X.A", "difficulty_factors = { no_carry = 1.5 }", ""), "difficulty factor 'no_carry' has weight 1.5; allowed: 0-1"),
        (skill("X.A", "", "").replace("digits = [2, 2]", "digits = [2, 12]"), "generator.digits: [2, 12] is out of range; allowed: 1-9 digits each"),
        (skill("X.A", "evaluation = { method = \"test_execution\" }", ""), "test_execution needs code items"),
        (skill("X.A", "", "").replace("item_type = \"multiple_choice\"", "item_type = \"free_text\""), "option_count applies to multiple_choice items only, and this one is free_text"),
        (skill("X.A", "", "").replace("item_type = \"multiple_choice\"", "item_type = \"code_editor\""), "code_editor needs a python generator"),
        (skill("X.A", "", "").replace("stem_templates = [\"What is {op1} + {op2}?\"]", "stem_templates = []"), "stem_templates is empty"),
        (skill("X.A", "", "").replace("{op2}?", "{op2"), "never closed"),
        (skill("BAD ID", "", ""), "skill_id: 'BAD ID' is not allowed; allowed: 1-100 letters, digits, '.', '_' and '-'"),
        (skill("X.A", "time_limit_seconds = 0", ""), "time_limit_seconds: 0 is out of range; allowed: 1-86400"),
        (skill("X.A", "discrimination = -1.0", ""), "discrimination: -1 is out of range"),
        (skill("X.A", "performance_benchmarks = { expert = { accuracy = 1.2, time_seconds = 5 } }", ""), "performance_benchmarks.expert.accuracy: 1.2 is out of range; allowed: 0-1"),
        (skill("X.A", "", "").replace("distractor_strategies = [\"off_by_10\", \"off_by_1\"]", "distractor_strategies = []"), "multiple_choice needs at least one distractor strategy; allowed for arithmetic (add): off_by_1, off_by_10, off_by_100"),
        (skill("X.A", "evaluation = { method = \"numeric_tolerance\", tolerance = -1 }", ""), "evaluation.tolerance: -1 is not allowed; allowed: 0 or more"),
    ];
    for (text, expected) in cases {
        let err = add_error(&text);
        assert!(err.contains(expected), "expected '{expected}' in: {err}");
    }
}

#[test]
fn generator_specific_problems() {
    let pack = |generator: &str, extra: &str, item_type: &str| {
        format!(
            r#"
[[skills]]
skill_id = "X.G"
domain = "d"
skill_statement = "s"
cognitive_level = "apply"
generator = {generator}
{extra}
[skills.presentation]
item_type = "{item_type}"
stem_templates = ["q"]
"#
        )
    };
    let cases = [
        (
            pack(r#"{ kind = "ipv4_subnet", question = "host_count", prefix_range = [8, 32] }"#, "", "free_text"),
            "prefix_range: [8, 32] is not allowed for host_count; allowed: 1 <= min <= max <= 30",
        ),
        (
            pack(
                r#"{ kind = "ipv4_subnet", question = "network_address", prefix_range = [25, 30] }"#,
                "difficulty_factors = { classful = 0.3 }",
                "free_text",
            ),
            "difficulty factor 'classful' cannot occur: prefix_range [25, 30] holds none of /8, /16, /24",
        ),
        (
            pack(
                r#"{ kind = "ipv4_subnet", question = "network_address" }"#,
                "evaluation = { method = \"numeric_tolerance\", tolerance = 1 }",
                "free_text",
            ),
            "numeric_tolerance needs a numeric answer",
        ),
        (
            pack(r#"{ kind = "linear_equation", variable = "xy" }"#, "", "free_text"),
            "generator.variable: 'xy' is not allowed; allowed: one letter",
        ),
        (
            pack(r#"{ kind = "python", task = "count_chars" }"#, "", "free_text"),
            "python (count_chars) makes code tasks; allowed: code_editor",
        ),
        (
            pack(r#"{ kind = "python", task = "count_chars", test_count = 50 }"#, "", "code_editor"),
            "generator.test_count: 50 is out of range; allowed: 3-20",
        ),
        (pack(r#"{ kind = "python", task = "sorting" }"#, "", "code_editor"), "unknown variant `sorting`"),
        (
            pack(
                r#"{ kind = "arithmetic", operation = "divide", digits = [1, 1] }"#,
                "difficulty_factors = { regrouping = 0.7 }",
                "free_text",
            ),
            "the quotient cannot reach 10",
        ),
        (
            pack(r#"{ kind = "fraction", operation = "add", max_denominator = 200 }"#, "", "free_text"),
            "generator.max_denominator: 200 is out of range; allowed: 3-100",
        ),
    ];
    for (text, expected) in cases {
        let err = add_error(&text);
        assert!(err.contains(expected), "expected '{expected}' in: {err}");
    }
    let number_base = [
        (
            pack(r#"{ kind = "number_base", question = "to_binary", max_bits = 20 }"#, "", "free_text"),
            "generator.max_bits: 20 is out of range; allowed: 4-16",
        ),
        (
            pack(r#"{ kind = "number_base", question = "octet_to_binary", max_bits = 8 }"#, "", "free_text"),
            "generator.max_bits: does not apply to octet_to_binary (an octet is always 8 bits); allowed for to_binary and from_binary",
        ),
        (
            pack(r#"{ kind = "number_base", question = "from_binary", digits = [3, 5] }"#, "", "free_text"),
            "generator.digits: does not apply to from_binary (use max_bits for a binary number); allowed for digit_value and place_name",
        ),
        (
            pack(r#"{ kind = "number_base", question = "digit_value", digits = [1, 5] }"#, "", "free_text"),
            "generator.digits: [1, 5] is not allowed; allowed: 2 <= min <= max <= 9",
        ),
        (
            pack(r#"{ kind = "number_base", question = "place_name", digits = [3, 12] }"#, "", "free_text"),
            "allowed: 2 <= min <= max <= 9",
        ),
        (
            pack(r#"{ kind = "number_base", question = "to_binary", max_bits = 8 }"#, "difficulty_factors = { large = 0.7 }", "free_text"),
            "difficulty factor 'large' cannot occur: max_bits 8 leaves no number above 255; allowed: 9 or more",
        ),
        (
            pack(r#"{ kind = "number_base", question = "digit_value", digits = [2, 3] }"#, "difficulty_factors = { many_digits = 0.5 }", "free_text"),
            "difficulty factor 'many_digits' cannot occur: digits [2, 3] leaves no number of 5 digits or more",
        ),
        (
            pack(r#"{ kind = "number_base", question = "octet_to_binary" }"#, "difficulty_factors = { small = 0.3 }", "free_text"),
            "difficulty factor 'small' is not known for number_base (octet_to_binary); allowed: few_ones, many_ones",
        ),
        (
            pack(r#"{ kind = "number_base", question = "to_binary" }"#, "", "free_text").replace("[\"q\"]", "[\"Write {binary}\"]"),
            "stem_templates[0] uses {binary}; placeholders of number_base (to_binary): {number}",
        ),
        (
            pack(r#"{ kind = "number_base", question = "place_name" }"#, "", "free_text").replace("[\"q\"]", "[\"{place}\"]"),
            "placeholders of number_base (place_name): {number}, {digit}",
        ),
        (
            pack(r#"{ kind = "number_base", question = "octet_to_binary" }"#, "evaluation = { method = \"numeric_tolerance\", tolerance = 0 }", "free_text"),
            "numeric_tolerance needs a numeric answer, and number_base (octet_to_binary) answers are not numbers",
        ),
        (
            pack(r#"{ kind = "number_base", question = "to_binary" }"#, "", "multiple_choice")
                .replace("stem_templates", "option_count = 4\ndistractor_strategies = [\"missing_leading_zeros\"]\nstem_templates"),
            "distractor strategy 'missing_leading_zeros' is not known for number_base (to_binary); allowed: reversed_bit_order, missing_zero_placeholder, off_by_power, dropped_bit, extra_bit",
        ),
        (pack(r#"{ kind = "number_base", question = "to_hex" }"#, "", "free_text"), "unknown variant `to_hex`"),
        (pack(r#"{ kind = "number_base", question = "to_binary", bits = 8 }"#, "", "free_text"), "unknown field `bits`"),
    ];
    for (text, expected) in number_base {
        let err = add_error(&text);
        assert!(err.contains(expected), "expected '{expected}' in: {err}");
    }
    let ok = pack(r#"{ kind = "python", task = "count_chars" }"#, "", "code_editor")
        .replace("stem_templates = [\"q\"]", "stem_templates = [\"q\"]\nstarter_code = \"def other(s):\\n    pass\"");
    assert!(add_error(&ok).contains("does not define count_chars()"));
}

fn assessment(sections: &str) -> String {
    format!(
        r#"
[[assessments]]
assessment_id = "A-1"
title = "A quiz"
time_limit_minutes = 10
selection = "random_from_pool"
{sections}
"#
    )
}

#[test]
fn assessment_problems_name_the_section() {
    let section = |skills: &str, distribution: &str, count: usize| {
        format!(
            "[[assessments.sections]]\nsection_id = \"s1\"\nskill_domain = \"d\"\nitem_count = {count}\nskill_blueprints = [{skills}]\n{distribution}\n"
        )
    };
    let cases = [
        (assessment(&section("\"NOPE.SKILL\"", "difficulty_distribution = { easy = 1 }", 1)), "assessments[0]: assessment 'A-1': section 's1': references unknown skill 'NOPE.SKILL'"),
        (assessment(&section("\"MATH.ARITH.ADD.2DIGIT\"", "difficulty_distribution = { easy = 2, medium = 2 }", 5)), "section 's1': difficulty_distribution sums to 4 (easy 2 + medium 2 + hard 0) but item_count is 5"),
        (assessment(&section("\"MATH.ARITH.ADD.2DIGIT\"", "", 5)), "need difficulty_distribution { easy, medium, hard } summing to item_count 5"),
        (assessment(&section("\"MATH.ARITH.ADD.1DIGIT\"", "difficulty_distribution = { hard = 1 }", 1)), "asks for 1 hard items, but none of its skill blueprints (MATH.ARITH.ADD.1DIGIT) makes hard items and its pool has 0"),
        (assessment(&(section("\"MATH.ARITH.ADD.2DIGIT\"", "difficulty_distribution = { easy = 1 }", 1) + "[[assessments.sections.pool]]\nstem = \"q\"\noptions = [\"a\", \"b\"]\ncorrect = 2\n")), "section 's1': pool[0]: correct index 2 is out of range; allowed: 0-1"),
        (assessment(&(section("\"MATH.ARITH.ADD.2DIGIT\"", "difficulty_distribution = { easy = 1 }", 1) + &section("\"MATH.ARITH.ADD.2DIGIT\"", "difficulty_distribution = { easy = 1 }", 1))), "section id 's1' is used twice"),
        (assessment("").replace("title = \"A quiz\"", "title = \"A quiz\"\nsections = []"), "has no sections"),
        (assessment(&section("\"MATH.ARITH.ADD.2DIGIT\"", "difficulty_distribution = { easy = 1 }", 1)).replace("selection", "total_items = 3\nselection"), "total_items is 3 but the sections' item counts sum to 1"),
        (assessment(&section("\"MATH.ARITH.ADD.2DIGIT\"", "difficulty_distribution = { easy = 1 }", 1)).replace("time_limit_minutes = 10", "time_limit_minutes = 0"), "time_limit_minutes 0 is out of range; allowed: 1-1440"),
        (assessment(&section("\"MATH.ARITH.ADD.2DIGIT\"", "", 1)).replace("\"random_from_pool\"", "\"adaptive\"\nadaptive = { min_items = 9, max_items = 4 }"), "adaptive.min_items 9 is out of range; allowed: 1-4 (max_items)"),
        (assessment(&section("\"MATH.ARITH.ADD.2DIGIT\"", "difficulty_distribution = { easy = 1 }", 1)).replace("selection = \"random_from_pool\"", "selection = \"fixed\"\nadaptive = { max_items = 4 }"), "adaptive settings apply to selection = \"adaptive\" only"),
        (assessment(&section("\"MATH.ARITH.ADD.2DIGIT\"", "difficulty_distribution = { easy = 1 }", 1)).replace("random_from_pool", "random"), "unknown variant `random`"),
    ];
    for (text, expected) in cases {
        let err = add_error(&text);
        assert!(err.contains(expected), "expected '{expected}' in: {err}");
    }
    // An unknown skill is refused even when the pack's own skills load.
    let err = add_error(
        &(skill("X.OK", "", "")
            + &assessment(&section("\"X.OK\", \"X.MISSING\"", "difficulty_distribution = { easy = 1 }", 1))),
    );
    assert!(err.contains("references unknown skill 'X.MISSING'"), "{err}");
}

#[test]
fn duplicate_ids_are_refused_within_a_pack_and_against_the_library() {
    let err = add_error(&(skill("X.A", "", "") + &skill("X.A", "", "")));
    assert_eq!(err, "skills[1]: skill id 'X.A' is already taken earlier in this pack");
    let err = add_error(&skill("MATH.ARITH.ADD.2DIGIT", "", ""));
    assert_eq!(err, "skills[0]: skill id 'MATH.ARITH.ADD.2DIGIT' is already taken in the library");
    let text = assessment(
        "[[assessments.sections]]\nsection_id = \"s\"\nskill_domain = \"d\"\nitem_count = 1\nskill_blueprints = [\"MATH.ARITH.ADD.2DIGIT\"]\ndifficulty_distribution = { easy = 1 }\n",
    )
    .replace("A-1", "MATH-ARITH-QUIZ-10");
    assert_eq!(add_error(&text), "assessments[0]: assessment id 'MATH-ARITH-QUIZ-10' is already taken in the library");
}

#[test]
fn inline_pool_items_are_drawn_by_band_and_regenerate() {
    let mut library = Library::new();
    let text = r#"
[[assessments]]
assessment_id = "CAPITALS"
title = "Capitals"
time_limit_minutes = 5
selection = "random_from_pool"

[[assessments.sections]]
section_id = "europe"
skill_domain = "Geography"
item_count = 2
difficulty_distribution = { easy = 1, hard = 1 }

[[assessments.sections.pool]]
stem = "Capital of France?"
options = ["Paris", "Lyon", "Nice"]
correct = "Paris"
difficulty = 0.1

[[assessments.sections.pool]]
stem = "Capital of Italy?"
options = ["Milan", "Rome"]
correct = 1
difficulty = 0.2

[[assessments.sections.pool]]
stem = "Capital of Liechtenstein?"
correct = "Vaduz"
difficulty = 0.9
"#;
    library.add_pack(text, PackFormat::Toml).unwrap();
    let mut firsts = std::collections::HashSet::new();
    for seed in 0..20 {
        let form = library.plan_form("CAPITALS", seed).unwrap();
        assert_eq!(form.len(), 2);
        assert_eq!(form[0].band(), Band::Easy);
        assert_eq!(form[1].stem, "Capital of Liechtenstein?");
        firsts.insert(form[0].stem.clone());
        for item in &form {
            support::assert_sound(item);
            assert_eq!(&library.regenerate(&item.id).unwrap(), item);
        }
    }
    assert_eq!(firsts.len(), 2, "both easy pool items are drawn across sessions");
    let err = library.regenerate("inline~0123456789abcdef").unwrap_err().to_string();
    assert!(err.contains("unknown inline item"), "{err}");

    let short = text
        .replace("easy = 1, hard = 1", "easy = 1, hard = 2")
        .replace("item_count = 2", "item_count = 3")
        .replace("CAPITALS", "C2");
    let err = Library::new().add_pack(&short, PackFormat::Toml).unwrap_err().to_string();
    assert!(err.contains("asks for 2 hard items, but it has no skill blueprints and its pool has 1"), "{err}");
}

#[test]
fn unknown_ids_are_errors_not_panics() {
    let library = Library::builtin();
    assert_eq!(library.plan_form("NOPE", 1).unwrap_err().to_string(), "unknown assessment 'NOPE'");
    assert_eq!(
        library.generate("NOPE", 1, Target::Band(Band::Easy)).unwrap_err().to_string(),
        "unknown skill blueprint 'NOPE'"
    );
    assert!(library.regenerate("NOPE~s=1~d=0.50").unwrap_err().to_string().contains("unknown skill blueprint 'NOPE'"));
    assert!(library.regenerate("garbage").unwrap_err().to_string().contains("malformed"));
    let err = library.generate("MATH.ARITH.ADD.2DIGIT", 1, Target::Difficulty(2.0)).unwrap_err().to_string();
    assert!(err.contains("allowed: 0-1 or easy, medium, hard"), "{err}");
}

#[test]
fn every_builtin_skill_and_assessment_loads() {
    let library = Library::builtin();
    let skills: Vec<&str> = library.skills().map(|s| s.id()).collect();
    for prefix in [
        "MATH.ARITH.ADD.",
        "MATH.ARITH.SUB.",
        "MATH.ARITH.MUL.",
        "MATH.ARITH.DIV.",
        "MATH.ALG.LINEAR.",
        "MATH.FRAC.",
        "NET.IP.SUBNET.",
        "NET.BIN.",
        "MATH.NUM.",
        "PROG.PYTHON.",
    ] {
        assert!(skills.iter().any(|s| s.starts_with(prefix)), "{prefix}");
    }
    let assessments: Vec<&str> = library.assessments().map(|a| a.id()).collect();
    assert!(assessments.contains(&"MATH-ARITH-QUIZ-10") && assessments.contains(&"MATH-ARITH-ADAPTIVE"));
}
