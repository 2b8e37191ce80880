#!/bin/sh
# Seeds the corpora of the lca and lcm fuzz targets from the repository's fixtures:
#   records      lca/tests/data/*.pp (profile records), one file each
#   formulae     the FORM column of lca/forms.txt and the right-hand sides of `// lcm:`
#                lines in the lcm fixtures and examples, one expression per file
#   annotations  the `// lcm:` blocks of those sources, one file each
#   pamela       lcm/tests/pamela/*.pam
#   rust_sources lcm/tests/predict/*.rs and the instrumented examples (examples/src)
# Run from the repository root; writes fuzz/corpus/<target>/ (ignored by git). Then, e.g.
#   cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run pamela corpus/pamela -- -max_total_time=60
set -eu
out=fuzz/corpus
mkdir -p "$out/records" "$out/formulae" "$out/annotations" "$out/pamela" "$out/rust_sources"
for f in lca/tests/data/*.pp; do cp "$f" "$out/records/"; done
for f in lcm/tests/pamela/*.pam; do cp "$f" "$out/pamela/"; done
sources=$(ls lcm/tests/predict/*.rs; grep -rl '// lcm:' examples/src)
i=0
for f in $sources; do
    i=$((i + 1))
    cp "$f" "$out/rust_sources/$i.rs"
    grep '// lcm:' "$f" | sed 's/^ *//' > "$out/annotations/$i.txt" || true
done
i=0
{
    grep -v '^#' lca/forms.txt | awk 'NF >= 3 { $1 = ""; $2 = ""; sub(/#.*/, ""); print }'
    cat $sources | sed -n 's|^ *// lcm: *[a-z_]* *= *||p'
} | while IFS= read -r e; do
    [ -n "$e" ] || continue
    i=$((i + 1))
    printf '%s' "$e" > "$out/formulae/$i.txt"
done
for t in records formulae annotations pamela rust_sources; do
    echo "$t: $(ls "$out/$t" | wc -l) seeds"
done
