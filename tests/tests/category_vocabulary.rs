//! One category vocabulary: the keys pp writes, the keys lca reads as categories and the
//! keys lcm takes as a fragment's category models are all the `category` crate's, and the
//! three tools sum a window's categories into its time by the same rule.

use category::{keys, time, Category, ProfileRecord};

/// A record carrying every category, each a distinct power of two (so that the sum says
/// which were added).
fn every_category() -> ProfileRecord {
    ProfileRecord {
        note: vec![("n".into(), "8".into())],
        tag: Some("f".into()),
        processors: 4,
        categories: Category::ALL
            .iter()
            .enumerate()
            .map(|(i, c)| (*c, f64::from(1u32 << i)))
            .collect(),
    }
}

/// The value `every_category` gives `c`.
fn value(c: Category) -> f64 {
    let i = Category::ALL.iter().position(|x| *x == c).unwrap();
    f64::from(1u32 << i)
}

#[test]
fn pp_writes_only_the_vocabulary_in_its_order() {
    // Made by hand: one thread, p = 1, a fragment `f` of 2 ms inside a 4 ms session; the
    // run is its own baseline, so pc and ml are written too.
    let text = "pptrace 1\nprocessors 1\n0 0 session_begin\n\
        1000000 0 frag_begin f\n3000000 0 frag_end f\n4000000 0 session_end\n";
    let mut a = pp::analyze_bytes(
        text.as_bytes().to_vec(),
        "t.pptrace",
        &pp::Options::all_tags(),
    )
    .expect("a valid trace");
    let own = a.clone();
    a.apply_baseline(&own);
    let lines = a.record_lines(&["n=8".to_string()]);
    assert_eq!(lines.len(), 2, "{lines:?}");
    for (line, r) in lines.iter().zip(a.records(&["n=8".to_string()])) {
        assert_eq!(*line, r.to_string());
        let written: Vec<Category> = line
            .split(' ')
            .filter_map(|t| t.split_once('='))
            .filter(|(k, _)| !["n", "tag", "p"].contains(k))
            .map(|(k, _)| Category::from_key(k).unwrap_or_else(|| panic!("{k} in {line}")))
            .collect();
        assert!(written.windows(2).all(|w| w[0] < w[1]), "{line}");
        for c in [
            Category::Li,
            Category::Fj,
            Category::Pc,
            Category::Ml,
            Category::Rt,
            Category::Tt,
        ] {
            assert!(written.contains(&c), "{c} missing from {line}");
        }
        // pp's invariant is the partition of the shared crate.
        let rec = lca::record::parse_records(line).unwrap();
        let sum: f64 = time::TT_PARTITION
            .iter()
            .map(|c| rec[0].number(c.key()).unwrap())
            .sum();
        assert!((sum - rec[0].number("tt").unwrap()).abs() < 1e-12, "{line}");
    }
    // A note may not use a key of the vocabulary (pp writes those itself).
    for c in Category::ALL {
        assert!(pp::parse_note(&format!("{}=1", c.key())).is_err(), "{c}");
    }
    assert!(pp::parse_note("time=1 bytes=2").is_ok());
}

#[test]
fn lca_reads_every_key_of_the_vocabulary_and_no_other() {
    let mut lca_keys: Vec<&str> = lca::record::CATEGORY_KEYS.to_vec();
    lca_keys.extend(lca::record::PART_KEYS.iter().map(|(k, _)| *k));
    lca_keys.sort_unstable();
    let mut all = keys(Category::ALL).to_vec();
    all.sort_unstable();
    assert_eq!(lca_keys, all);
    for (part, whole) in lca::record::PART_KEYS {
        assert_eq!(
            Category::from_key(part).and_then(Category::part_of),
            Category::from_key(whole)
        );
    }
    // The typed record and its line read the same.
    let r = every_category();
    let typed = lca::record::Record::from_profile(1, &r);
    assert_eq!(
        typed,
        lca::record::parse_records(&r.to_string()).unwrap()[0]
    );
    assert_eq!(typed.categories(), keys(Category::PRIMARY));
    assert_eq!(typed.parts(), [("fj", "li")]);
}

#[test]
fn lcm_takes_every_key_of_the_vocabulary_as_a_model() {
    assert_eq!(lcm::predict::tree::CATEGORIES, keys(Category::ALL));
    // A fragment annotated with every category: each is one of its models (none is read
    // as a variable), and the prediction sums li + ip + sl + wc + rt only.
    let (got, work) = lcm_fragment(&keys(Category::ALL));
    assert_eq!(got, keys(Category::ALL));
    let want: f64 = time::TT_PARTITION.iter().map(|c| value(*c)).sum();
    assert_eq!(work, want);
}

/// The category keys lcm reads from a fragment annotated with a model `KEY = value(KEY)`
/// for each of `keys`, and that fragment's processor-seconds by lcm's sum rule.
fn lcm_fragment(keys: &[&str]) -> (Vec<String>, f64) {
    let models: String = keys
        .iter()
        .map(|k| {
            format!(
                "    // lcm: {k} = {}\n",
                value(Category::from_key(k).unwrap())
            )
        })
        .collect();
    let src = format!("fn main() {{\n    // lcm: fragment f\n{models}    f();\n}}\nfn f() {{}}\n");
    let (root, _) = lcm::predict::program::structure("t.rs", &src, "main", None).unwrap();
    let frags = root.fragments();
    let got = frags[0].categories.iter().map(|(k, _)| k.clone()).collect();
    let work = lcm::predict::env::work_expr(frags[0]).unwrap();
    (got, work.eval(&Default::default()).unwrap())
}

#[test]
fn lca_and_the_study_sum_by_the_same_rule() {
    // A fitted fragment with the baseline split (no rt): li + ip + pc + ml; os, fj, cl and
    // rc are not added, tt neither.
    let fitted = ["pc", "ml", "li", "ip", "os", "fj", "cl", "rc", "tt"];
    let want =
        value(Category::Pc) + value(Category::Ml) + value(Category::Li) + value(Category::Ip);
    let file: String = fitted
        .iter()
        .map(|k| format!("// lcm: {k} = {}\n", value(Category::from_key(k).unwrap())))
        .collect();
    let fm = &lca::annotation::parse_models(&format!("// lcm: fragment f\n{file}")).unwrap()[0];
    let at: lca::expr::Bindings = [("p".to_string(), 2.0)].into_iter().collect();
    let e = lca::evaluate::evaluate(fm, &at).unwrap();
    assert_eq!(e.seconds, Some(want / 2.0));
    let fit = examples::study::model::FragmentFit {
        name: "f".into(),
        categories: fm
            .categories
            .iter()
            .map(|(k, e)| examples::study::model::CategoryFit {
                category: k.clone(),
                expr: e.clone(),
                form: k.clone(),
                r2: 1.0,
                points: 1,
            })
            .collect(),
    };
    let vars = [("p".to_string(), 2.0)].into_iter().collect();
    assert_eq!(fit.seconds(&vars), want / 2.0);
    assert_eq!(lcm_fragment(&fitted).1, want);
}
