//! Every generator's answers, recomputed here independently of the generator from the
//! parameters it records, for every built-in skill at many seeds and all targets.

mod support;

use pathwise_items::{Band, Item, Library, Target};
use serde_json::Value;
use std::net::Ipv4Addr;

fn items_of(library: &Library, prefix: &str, seeds: u64) -> Vec<Item> {
    let mut out = Vec::new();
    for skill in library.skills().filter(|s| s.id().starts_with(prefix)) {
        for seed in 0..seeds {
            for target in [Target::Band(Band::Easy), Target::Band(Band::Medium), Target::Band(Band::Hard)] {
                out.push(skill.generate(seed, target).unwrap());
            }
            out.push(skill.generate(seed, Target::difficulty((seed % 101) as f64 / 100.0).unwrap()).unwrap());
        }
    }
    assert!(!out.is_empty(), "no skill starts with {prefix}");
    out
}

fn int(params: &Value, name: &str) -> i64 {
    params[name].as_i64().unwrap_or_else(|| panic!("{name} in {params}"))
}

fn digits(mut n: i64) -> Vec<i64> {
    let mut d = Vec::new();
    while n > 0 {
        d.push(n % 10);
        n /= 10;
    }
    d
}

/// Carries of column addition, counted from the digit lists.
fn carries(a: i64, b: i64) -> i64 {
    let (da, db) = (digits(a), digits(b));
    let mut carry = 0;
    let mut count = 0;
    for i in 0..da.len().max(db.len()) {
        let s = da.get(i).unwrap_or(&0) + db.get(i).unwrap_or(&0) + carry;
        carry = (s > 9) as i64;
        count += carry;
    }
    count
}

fn borrows(a: i64, b: i64) -> i64 {
    let (da, db) = (digits(a), digits(b));
    let mut borrow = 0;
    let mut count = 0;
    for (i, top) in da.iter().enumerate() {
        let d = top - borrow - db.get(i).unwrap_or(&0);
        borrow = (d < 0) as i64;
        count += borrow;
    }
    count
}

#[test]
fn arithmetic_answers_and_carries() {
    let library = Library::builtin();
    for item in items_of(&library, "MATH.ARITH.", 150) {
        support::assert_sound(&item);
        let p = &item.generation_params;
        let (a, b) = (int(p, "op1"), int(p, "op2"));
        let key: i64 = item.key.answer.parse().unwrap();
        let expected = match p["operation"].as_str().unwrap() {
            "add" => {
                assert_eq!(int(p, "carries"), carries(a, b), "{}", item.stem);
                a + b
            }
            "subtract" => {
                assert_eq!(int(p, "borrows"), borrows(a, b), "{}", item.stem);
                assert!(a >= b);
                a - b
            }
            "multiply" => a * b,
            "divide" if item.blueprint_id.ends_with("REMAINDER") => a.rem_euclid(b),
            "divide" => {
                assert_eq!(a % b, 0, "{} is an exact division", item.stem);
                a / b
            }
            other => panic!("{other}"),
        };
        assert_eq!(key, expected, "{} {}", item.id, item.stem);
        assert!(item.stem.contains(&a.to_string()) && item.stem.contains(&b.to_string()), "{}", item.stem);
    }
}

#[test]
fn carry_counts_follow_the_target_band() {
    let library = Library::builtin();
    let add = library.skill("MATH.ARITH.ADD.2DIGIT").unwrap();
    let sub = library.skill("MATH.ARITH.SUB.3DIGIT").unwrap();
    for seed in 0..500 {
        for (band, count) in [(Band::Easy, 0), (Band::Medium, 1), (Band::Hard, 2)] {
            let item = add.generate(seed, Target::Band(band)).unwrap();
            let p = &item.generation_params;
            assert_eq!(carries(int(p, "op1"), int(p, "op2")), count, "{}", item.stem);
            assert_eq!(item.band(), band);
            let item = sub.generate(seed, Target::Band(band)).unwrap();
            let p = &item.generation_params;
            assert_eq!(borrows(int(p, "op1"), int(p, "op2")), count, "{}", item.stem);
            assert_eq!(item.band(), band);
        }
        // A value target picks the factor of the nearest weight: 0.5 is a single carry.
        let item = add.generate(seed, Target::difficulty(0.5).unwrap()).unwrap();
        let p = &item.generation_params;
        assert_eq!(carries(int(p, "op1"), int(p, "op2")), 1);
        assert!((0.48..=0.52).contains(&item.difficulty), "{}", item.difficulty);
    }
}

fn ratio(text: &str) -> (i64, i64) {
    match text.split_once('/') {
        Some((n, d)) => (n.parse().unwrap(), d.parse().unwrap()),
        None => (text.parse().unwrap(), 1),
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

#[test]
fn linear_equation_solutions_satisfy_the_equation() {
    let library = Library::builtin();
    for item in items_of(&library, "MATH.ALG.", 150) {
        support::assert_sound(&item);
        let p = &item.generation_params;
        let (a, b, d, e) = (int(p, "a"), int(p, "b"), int(p, "d"), int(p, "e"));
        let (n, q) = ratio(&item.key.answer);
        assert!(q > 0 && gcd(n, q) == 1, "{} is in lowest terms", item.key.answer);
        // a (n/q) + b = d (n/q) + e, times q.
        assert_eq!(a * n + b * q, d * n + e * q, "{} with x = {}", item.stem, item.key.answer);
        if !item.blueprint_id.ends_with("RATIONAL") {
            assert_eq!(q, 1, "{}", item.stem);
        }
    }
}

#[test]
fn fraction_results_are_exact_and_simplest() {
    let library = Library::builtin();
    for item in items_of(&library, "MATH.FRAC.", 150) {
        support::assert_sound(&item);
        let p = &item.generation_params;
        let f = |name: &str| (p[name][0].as_i64().unwrap(), p[name][1].as_i64().unwrap());
        let ((n1, d1), (n2, d2)) = (f("f1"), f("f2"));
        let (num, den) = match p["operation"].as_str().unwrap() {
            "add" => (n1 * d2 + n2 * d1, d1 * d2),
            "subtract" => (n1 * d2 - n2 * d1, d1 * d2),
            "multiply" => (n1 * n2, d1 * d2),
            other => panic!("{other}"),
        };
        let (kn, kd) = ratio(&item.key.answer);
        assert_eq!(num * kd, kn * den, "{} = {}", item.stem, item.key.answer);
        assert_eq!(gcd(kn, kd), 1, "{} is in simplest form", item.key.answer);
        assert!(kn > 0);
    }
}

/// The mask of a prefix, built octet by octet (unlike the generator's shift).
fn mask(prefix: u32) -> Ipv4Addr {
    let mut octets = [0u8; 4];
    for (i, o) in octets.iter_mut().enumerate() {
        let bits = prefix.saturating_sub(8 * i as u32).min(8);
        *o = (0xFFu16 << (8 - bits)) as u8;
    }
    Ipv4Addr::from(octets)
}

fn and(a: Ipv4Addr, b: Ipv4Addr) -> Ipv4Addr {
    let (a, b) = (a.octets(), b.octets());
    Ipv4Addr::new(a[0] & b[0], a[1] & b[1], a[2] & b[2], a[3] & b[3])
}

fn or_not(a: Ipv4Addr, b: Ipv4Addr) -> Ipv4Addr {
    let (a, b) = (a.octets(), b.octets());
    Ipv4Addr::new(a[0] | !b[0], a[1] | !b[1], a[2] | !b[2], a[3] | !b[3])
}

fn step(ip: Ipv4Addr, by: i64) -> Ipv4Addr {
    Ipv4Addr::from((u32::from(ip) as i64 + by) as u32)
}

#[test]
fn subnet_answers_match_address_arithmetic() {
    assert_eq!(mask(24), Ipv4Addr::new(255, 255, 255, 0));
    assert_eq!(mask(26), Ipv4Addr::new(255, 255, 255, 192));
    assert_eq!(mask(9), Ipv4Addr::new(255, 128, 0, 0));
    let library = Library::builtin();
    for item in items_of(&library, "NET.IP.", 150) {
        support::assert_sound(&item);
        let p = &item.generation_params;
        let ip: Ipv4Addr = p["ip"].as_str().unwrap().parse().unwrap();
        let prefix = int(p, "prefix") as u32;
        let m = mask(prefix);
        let network = and(ip, m);
        let broadcast = or_not(network, m);
        let expected = match p["question"].as_str().unwrap() {
            "network_address" => network.to_string(),
            "broadcast_address" => broadcast.to_string(),
            "first_host" => step(network, 1).to_string(),
            "last_host" => step(broadcast, -1).to_string(),
            "host_count" => (2i64.pow(32 - prefix) - 2).to_string(),
            "mask_from_prefix" => m.to_string(),
            "prefix_from_mask" => format!("/{prefix}"),
            other => panic!("{other}"),
        };
        assert_eq!(item.key.answer, expected, "{}", item.stem);
        if p["question"] != "prefix_from_mask" && p["question"] != "host_count" && p["question"] != "mask_from_prefix" {
            assert!(ip != network && ip != broadcast, "{}: the address is a host", item.stem);
        }
        let class_boundary = match ip.octets()[0] {
            0..=127 => 8,
            128..=191 => 16,
            _ => 24,
        };
        let expected_factor = match (prefix.is_multiple_of(8), prefix == class_boundary) {
            (false, _) => "complex_cidr",
            (true, true) if item.stem.contains(&ip.to_string()) => "classful",
            (true, _) => "simple_cidr",
        };
        assert_eq!(p["factor"], expected_factor, "{}", item.stem);
    }
}

#[test]
fn mask_answers_accept_both_notations() {
    let library = Library::builtin();
    for seed in 0..50 {
        let item = library.generate("NET.IP.SUBNET.MASK", seed, Target::Band(Band::Medium)).unwrap();
        let prefix = int(&item.generation_params, "prefix");
        for form in [format!("/{prefix}"), prefix.to_string(), item.key.answer.clone()] {
            assert!(item.check(&pathwise_items::Answer::Text(form.clone())).unwrap().correct, "{form}");
        }
        let wrong = format!("/{}", prefix + 1);
        assert!(!item.check(&pathwise_items::Answer::Text(wrong)).unwrap().correct);
    }
}

/// The names of decimal places by power of ten, as answers give them.
const PLACES: [&str; 9] = [
    "ones",
    "tens",
    "hundreds",
    "thousands",
    "ten thousands",
    "hundred thousands",
    "millions",
    "ten millions",
    "hundred millions",
];

/// `n` with a comma between groups of three digits, built from the right.
fn grouped(n: u64) -> String {
    let digits: Vec<char> = n.to_string().chars().rev().collect();
    let groups: Vec<String> = digits.chunks(3).map(|c| c.iter().rev().collect()).collect();
    groups.into_iter().rev().collect::<Vec<_>>().join(",")
}

#[test]
fn number_base_answers_match_the_number() {
    assert_eq!(grouped(4_372), "4,372");
    assert_eq!(grouped(372), "372");
    assert_eq!(grouped(100_000), "100,000");
    let library = Library::builtin();
    let mut items = items_of(&library, "NET.BIN.", 150);
    items.extend(items_of(&library, "MATH.NUM.", 150));
    let mut factors = std::collections::BTreeSet::new();
    for item in items {
        support::assert_sound(&item);
        assert_eq!(library.regenerate(&item.id).unwrap(), item);
        let p = &item.generation_params;
        let n = int(p, "number") as u64;
        let typed = |text: &str| item.check(&pathwise_items::Answer::Text(text.to_string())).unwrap().correct;
        let question = p["question"].as_str().unwrap();
        let factor = p["factor"].as_str().unwrap();
        factors.insert(format!("{question} {factor}"));
        match question {
            "to_binary" | "from_binary" => {
                let binary = format!("{n:b}");
                assert!(n >= 2, "{}", item.stem);
                let expected_factor = match binary.len() {
                    0..=4 => "small",
                    5..=8 => "byte",
                    _ => "large",
                };
                assert_eq!(factor, expected_factor, "{}", item.stem);
                if question == "to_binary" {
                    assert_eq!(item.key.answer, binary, "{}", item.stem);
                    assert!(item.stem.contains(&grouped(n)), "{}", item.stem);
                    assert!(typed(&format!("000{binary}")) && typed(&format!("0b{binary}")), "{}", item.stem);
                } else {
                    assert_eq!(p["binary"], binary);
                    assert_eq!(u64::from_str_radix(&binary, 2).unwrap(), n);
                    assert_eq!(item.key.answer, n.to_string(), "{}", item.stem);
                    assert!(item.stem.contains(&binary), "{}", item.stem);
                }
            }
            "octet_to_binary" | "octet_to_decimal" => {
                assert!((1..=255).contains(&n), "{}", item.stem);
                let octet = format!("{n:08b}");
                let ones = octet.matches('1').count();
                assert_eq!(int(p, "ones"), ones as i64);
                assert_eq!(factor, if ones <= 3 { "few_ones" } else { "many_ones" }, "{}", item.stem);
                if question == "octet_to_binary" {
                    assert_eq!(item.key.answer, octet, "{}", item.stem);
                    assert!(item.stem.contains(&n.to_string()), "{}", item.stem);
                    assert!(typed(&format!("{} {}", &octet[..4], &octet[4..])), "{octet} in two nibbles");
                    let unpadded = octet.trim_start_matches('0');
                    assert_eq!(typed(unpadded), unpadded.len() == 8, "{unpadded} is not eight bits");
                } else {
                    assert_eq!(u64::from_str_radix(p["binary"].as_str().unwrap(), 2).unwrap(), n);
                    assert_eq!(item.key.answer, n.to_string(), "{}", item.stem);
                    assert!(item.stem.contains(&octet), "{}", item.stem);
                }
            }
            "digit_value" | "place_name" => {
                let text = n.to_string();
                let place = int(p, "place") as usize;
                assert!(place >= 1 && place < text.len(), "{} place {place}", item.stem);
                let digit = text.as_bytes()[text.len() - 1 - place] - b'0';
                assert_eq!(int(p, "digit"), i64::from(digit));
                assert_eq!(
                    text.matches(char::from(b'0' + digit)).count(),
                    1,
                    "the digit {digit} of {n} names one place"
                );
                assert!(item.stem.contains(&grouped(n)), "{}", item.stem);
                let expected_factor = if text.contains('0') {
                    "zero_placeholder"
                } else if text.len() <= 4 {
                    "few_digits"
                } else {
                    "many_digits"
                };
                assert_eq!(factor, expected_factor, "{}", item.stem);
                if question == "digit_value" {
                    let value = u64::from(digit) * 10u64.pow(place as u32);
                    assert_eq!(item.key.answer, value.to_string(), "{}", item.stem);
                    assert!(typed(&grouped(value)), "{} typed with commas", grouped(value));
                } else {
                    assert_eq!(item.key.answer, PLACES[place], "{}", item.stem);
                    assert!(typed(&format!("the {} place", PLACES[place])));
                }
            }
            other => panic!("{other}"),
        }
    }
    let expected = [
        "to_binary small",
        "to_binary byte",
        "to_binary large",
        "from_binary small",
        "from_binary byte",
        "from_binary large",
        "octet_to_binary few_ones",
        "octet_to_binary many_ones",
        "octet_to_decimal few_ones",
        "octet_to_decimal many_ones",
        "digit_value few_digits",
        "digit_value many_digits",
        "digit_value zero_placeholder",
        "place_name few_digits",
        "place_name many_digits",
        "place_name zero_placeholder",
    ];
    assert_eq!(factors, expected.into_iter().map(String::from).collect(), "every factor is reached");
}

/// A pack with one multiple-choice skill of six options per question, using every strategy
/// the question has, so that every strategy's candidates are put through the option checks.
fn every_strategy_pack() -> String {
    let questions = [
        ("to_binary", "{number}", "reversed_bit_order, missing_zero_placeholder, off_by_power, dropped_bit, extra_bit"),
        ("from_binary", "{binary}", "reversed_bit_order, off_by_power, dropped_bit, extra_bit, off_by_1"),
        (
            "octet_to_binary",
            "{number}",
            "missing_leading_zeros, reversed_bit_order, off_by_power, dropped_bit, extra_bit",
        ),
        ("octet_to_decimal", "{binary}", "reversed_bit_order, off_by_power, dropped_bit, extra_bit, off_by_1"),
        ("digit_value", "{digit} in {number}", "digit_only, missing_zero_placeholder, counted_from_left, wrong_place"),
        ("place_name", "{digit} in {number}", "missing_zero_placeholder, counted_from_left, wrong_place"),
    ];
    let mut pack = String::new();
    for (question, shown, strategies) in questions {
        let strategies: Vec<String> = strategies.split(", ").map(|s| format!("\"{s}\"")).collect();
        pack += &format!(
            r#"
[[skills]]
skill_id = "T.{question}"
domain = "Number bases"
skill_statement = "s"
cognitive_level = "apply"
generator = {{ kind = "number_base", question = "{question}" }}
evaluation = {{ method = "equivalent_forms" }}
[skills.presentation]
item_type = "multiple_choice"
option_count = 6
distractor_strategies = [{}]
stem_templates = ["{shown}?"]
"#,
            strategies.join(", ")
        );
    }
    pack
}

#[test]
fn number_base_options_are_plausible_for_every_question() {
    let mut library = Library::new();
    library.add_pack(&every_strategy_pack(), pathwise_items::PackFormat::Toml).unwrap();
    for item in items_of(&library, "T.", 200) {
        support::assert_sound(&item);
        assert_eq!(item.options.len(), 6);
        let key = &item.key.answer;
        for option in item.options.iter().filter(|o| *o != key) {
            let ok = match item.generation_params["question"].as_str().unwrap() {
                "to_binary" => option.starts_with('1') && u32::from_str_radix(option, 2).is_ok(),
                "octet_to_binary" => {
                    option.len() <= 8
                        && u32::from_str_radix(option, 2).is_ok_and(|v| (1..=255).contains(&v))
                        && (option.len() == 8 || option.starts_with('1'))
                }
                "from_binary" | "octet_to_decimal" => option.parse::<u32>().is_ok(),
                // A non-zero digit followed by zeros: some digit's value somewhere.
                "digit_value" => {
                    option.trim_end_matches('0').len() == 1 && !option.starts_with('0') && option.len() <= 10
                }
                "place_name" => PLACES.contains(&option.as_str()),
                other => panic!("{other}"),
            };
            assert!(ok, "{}: option {option} beside {key}", item.stem);
        }
    }
}

/// The Python tasks' expected outputs, written another way.
fn python_expected(task: &str, input: &Value) -> Value {
    match task {
        "count_chars" => Value::from(input.as_str().unwrap().char_indices().count()),
        "reverse_string" => {
            let mut chars: Vec<char> = input.as_str().unwrap().chars().collect();
            chars.reverse();
            Value::from(chars.into_iter().collect::<String>())
        }
        "count_vowels" => {
            Value::from(input.as_str().unwrap().to_lowercase().matches(['a', 'e', 'i', 'o', 'u']).count())
        }
        "sum_list" => Value::from(input.as_array().unwrap().iter().fold(0, |s, v| s + v.as_i64().unwrap())),
        "max_of_list" => {
            let mut v: Vec<i64> = input.as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
            v.sort();
            Value::from(*v.last().unwrap())
        }
        "fizzbuzz" => {
            let n = input.as_i64().unwrap();
            let mut s = String::new();
            if n % 3 == 0 {
                s += "Fizz";
            }
            if n % 5 == 0 {
                s += "Buzz";
            }
            Value::from(if s.is_empty() { n.to_string() } else { s })
        }
        other => panic!("{other}"),
    }
}

#[test]
fn python_tests_expect_what_python_would_return() {
    let library = Library::builtin();
    for item in items_of(&library, "PROG.PYTHON.", 60) {
        support::assert_sound(&item);
        let task = item.generation_params["task"].as_str().unwrap();
        let code = item.code.as_ref().unwrap();
        assert!(code.starter_code.contains(&format!("def {}(", code.function_name)));
        assert_eq!(item.tests().len(), item.generation_params["test_count"].as_u64().unwrap() as usize);
        for test in item.tests() {
            assert_eq!(test.input.len(), 1);
            assert_eq!(test.expected, python_expected(task, &test.input[0]), "{task}({})", test.input[0]);
        }
        // The factor's edge case is among the hidden tests, not the examples.
        let hidden = &item.tests()[code.visible_tests..];
        match item.generation_params["factor"].as_str().unwrap() {
            "empty_edge" => assert!(hidden.iter().any(|t| t.input[0] == "" || t.input[0] == serde_json::json!([]))),
            "unicode" => assert!(hidden.iter().any(|t| !t.input[0].as_str().unwrap().is_ascii())),
            "negative_numbers" => assert!(hidden.iter().any(|t| t.input[0].to_string().contains('-'))),
            "multiples_of_15" => assert!(hidden.iter().any(|t| t.expected == "FizzBuzz")),
            _ => {}
        }
    }
}

#[test]
fn code_items_score_by_the_share_of_tests_passed() {
    let library = Library::builtin();
    let item = library.generate("PROG.PYTHON.STRING.LENGTH", 1, Target::Band(Band::Hard)).unwrap();
    let err = item.check(&pathwise_items::Answer::Text("def count_chars(s): return len(s)".into())).unwrap_err();
    assert!(err.to_string().contains("run its 5 tests"), "{err}");
    let check = item.check_tests(4, 5).unwrap();
    assert!(!check.correct);
    assert_eq!(check.credit, 0.8);
    assert_eq!(check.expected, "all 5 tests pass");
    assert!(item.check_tests(5, 5).unwrap().correct);
    assert!(item.check_tests(3, 4).unwrap_err().to_string().contains("has 5 tests"));
    let arithmetic = library.generate("MATH.ARITH.ADD.2DIGIT", 1, Target::Band(Band::Easy)).unwrap();
    assert!(arithmetic.check_tests(1, 1).unwrap_err().to_string().contains("not a code task"));
}
