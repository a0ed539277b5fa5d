//! Items stored by id must come back the same after an upgrade: these outputs are pinned.
//! If one changes, generation changed for ids already handed out.

use pathwise_items::Library;

#[test]
fn pinned_items_regenerate_identically() {
    let library = Library::builtin();
    let pinned = [
        ("MATH.ARITH.ADD.2DIGIT~s=1234~d=0.50", "Find the sum: 93 + 83", "166 | 176 | 10 | 175"),
        ("MATH.ARITH.SUB.3DIGIT~s=7~d=hard", "Calculate: 902 - 355 = ?", "557 | 547 | 653 | 447"),
        ("MATH.ALG.LINEAR.CHOICE~s=99~d=0.70", "Solve for x: 9x - 9 = 3x + 21", "-5 | 5 | 30 | 2"),
        (
            "NET.IP.SUBNET.CALC~s=2025~d=hard",
            "Calculate the network address for 166.228.100.15 with subnet mask 255.224.0.0",
            "166.0.0.0 | 166.228.100.15 | 166.255.255.255 | 166.224.0.0",
        ),
        ("MATH.FRAC.ADD~s=5~d=medium", "Add: 1/2 + 1/10", "4/5 | 1/6 | 1 | 3/5"),
    ];
    for (id, stem, options) in pinned {
        let item = library.regenerate(id).unwrap();
        assert_eq!(item.stem, stem, "{id}");
        assert_eq!(item.options.join(" | "), options, "{id}");
    }
}

#[test]
fn pinned_number_base_items_regenerate_identically() {
    let library = Library::builtin();
    let pinned = [
        (
            "NET.BIN.OCTET.CHOICE~s=2025~d=medium",
            "Which is the octet 255 written in binary?",
            "01111111 | 11111110 | 11101111 | 11111111",
            "11111111",
        ),
        (
            "MATH.NUM.PLACEVALUE.CHOICE~s=1234~d=hard",
            "In 6,820, what is the value of the digit 2?",
            "200 | 20 | 2000 | 2",
            "20",
        ),
        (
            "MATH.NUM.PLACENAME.CHOICE~s=42~d=0.40",
            "Which place does the 4 hold in 9,419,711?",
            "millions | tens | ten thousands | hundred thousands",
            "hundred thousands",
        ),
        ("NET.BIN.TOBINARY~s=7~d=0.70", "Write 332 in binary.", "", "101001100"),
    ];
    for (id, stem, options, key) in pinned {
        let item = library.regenerate(id).unwrap();
        assert_eq!(item.stem, stem, "{id}");
        assert_eq!(item.options.join(" | "), options, "{id}");
        assert_eq!(item.key.answer, key, "{id}");
    }
}

#[test]
fn pinned_code_tests_regenerate_identically() {
    let library = Library::builtin();
    let item = library.regenerate("PROG.PYTHON.STRING.LENGTH~s=3~d=hard").unwrap();
    let tests = serde_json::to_string(item.tests()).unwrap();
    assert_eq!(
        tests,
        r#"[{"input":["castle"],"expected":6},{"input":["orange"],"expected":6},{"input":["banana"],"expected":6},{"input":["straße"],"expected":6},{"input":["silver"],"expected":6}]"#
    );
}
