//! docs/RULES.md is the project's copy of the shared rules (../shared/RULES.md), so that a clone
//! of this repository is complete. When the shared original is present (a developer checkout and
//! CI both have it beside the clone), the copy must be identical.

#[test]
fn docs_rules_md_is_an_exact_copy_of_the_shared_rules() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let copy = std::fs::read_to_string(root.join("docs/RULES.md")).expect("docs/RULES.md");
    assert!(copy.contains("K-15"), "docs/RULES.md holds the rules");
    match std::fs::read_to_string(root.join("../shared/RULES.md")) {
        Ok(original) => assert!(
            copy == original,
            "docs/RULES.md differs from ../shared/RULES.md: copy it again (cp ../shared/RULES.md docs/RULES.md)"
        ),
        Err(_) => eprintln!("NOTE: ../shared/RULES.md is not beside this checkout; the copy was not compared"),
    }
}
