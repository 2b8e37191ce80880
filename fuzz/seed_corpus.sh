#!/usr/bin/env bash
# Seeds the fuzz corpora (fuzz/corpus/TARGET/, not in git) from the repository's text-trace
# fixtures: whole files for the targets that read any bytes (readers, file_reader), and
# the event lines only (the header stripped: those targets prepend one) for pptrace and
# fast_engine. Run once before `cargo fuzz run TARGET`; existing corpus files are kept.
set -euo pipefail
cd "$(dirname "$0")"
fixtures=(../pp/tests/fixtures/*.pptrace ../pplib/tests/fixtures/*.pptrace)
# The crate's name first: both crates have a design_example.pptrace.
seed_name() { echo "$(basename "$(dirname "$(dirname "$(dirname "$1")")")")_$(basename "$1")"; }
for target in readers file_reader; do
    mkdir -p "corpus/$target"
    for f in "${fixtures[@]}"; do
        cp "$f" "corpus/$target/$(seed_name "$f")"
    done
done
for target in pptrace fast_engine; do
    mkdir -p "corpus/$target"
    for f in "${fixtures[@]}"; do
        grep -v -E '^[[:space:]]*(pptrace|processors)([[:space:]]|$)' "$f" \
            >"corpus/$target/$(seed_name "$f")" || true
    done
done
echo "seeded: $(ls corpus | tr '\n' ' ')"
