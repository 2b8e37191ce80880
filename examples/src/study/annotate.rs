//! Writing fitted fragment models into a program's source, as `// lcm:` lines directly
//! under each fragment's `// lcm: fragment NAME` line (docs/models.md).

use lca::annotation::{parse_line, Annotation, FragmentModel};
use lca::record::CATEGORY_KEYS;

/// Returns `source` with the models of `models` written under the `// lcm: fragment NAME`
/// line of each fragment they name, with that line's indentation. Category lines already
/// in the fragment's comment block (`// lcm: rt = ...`) are replaced, other lines (data
/// annotations, `bytes = ...`, variable overrides) kept.
/// Returns also the names of the fragments of the source that got no model.
pub fn annotate(source: &str, models: &[FragmentModel]) -> (String, Vec<String>) {
    let mut out = String::with_capacity(source.len() + 256);
    let mut unmodeled = Vec::new();
    let mut in_block = false;
    for line in source.lines() {
        let trimmed = line.trim_start();
        let annotation = if trimmed.starts_with("//") {
            parse_line(trimmed).ok().flatten()
        } else {
            None
        };
        if in_block {
            if matches!(&annotation, Some(Annotation::Model { category, .. })
                if CATEGORY_KEYS.contains(&category.as_str()))
            {
                continue; // an old model of this fragment: replaced
            }
            if !trimmed.starts_with("//") {
                in_block = false;
            }
        }
        out.push_str(line);
        out.push('\n');
        if let Some(Annotation::Fragment(name)) = annotation {
            in_block = true;
            let indent = &line[..line.len() - trimmed.len()];
            match models.iter().find(|m| m.name == name) {
                Some(model) => {
                    for a in model.annotations().iter().skip(1) {
                        out.push_str(indent);
                        out.push_str(&a.to_string());
                        out.push('\n');
                    }
                }
                None => unmodeled.push(name),
            }
        }
    }
    (out, unmodeled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lca::expr::parse;

    fn model(name: &str, cats: &[(&str, &str)]) -> FragmentModel {
        FragmentModel {
            name: name.into(),
            categories: cats
                .iter()
                .map(|(c, e)| (c.to_string(), parse(e).unwrap()))
                .collect(),
            ranges: Vec::new(),
        }
    }

    #[test]
    fn writes_models_under_fragment_lines_with_their_indentation() {
        let src = "fn f() {\n    // lcm: fragment cols\n    a.par_iter();\n\n    // lcm: fragment rows\n    b();\n}\n";
        let (out, missing) = annotate(src, &[model("cols", &[("rt", "2*n"), ("li", "p")])]);
        assert_eq!(
            out,
            "fn f() {\n    // lcm: fragment cols\n    // lcm: rt = 2*n\n    // lcm: li = p\n    a.par_iter();\n\n    // lcm: fragment rows\n    b();\n}\n"
        );
        assert_eq!(missing, vec!["rows".to_string()]);
    }

    #[test]
    fn replaces_old_models_and_keeps_other_annotations() {
        let src = "// lcm: fragment init\n// lcm: rt = 1\n// lcm: p = p/2\n// lcm: bytes = 16*n\nx();\n// lcm: rt = 5\n";
        let (out, missing) = annotate(src, &[model("init", &[("rt", "3*n")])]);
        assert_eq!(
            out,
            "// lcm: fragment init\n// lcm: rt = 3*n\n// lcm: p = p/2\n// lcm: bytes = 16*n\nx();\n// lcm: rt = 5\n"
        );
        assert!(missing.is_empty());
    }
}
