"""The checks behind scripts/fhir-validate: one module per FHIR version (r4, dstu2), each
with `check(resource)` and its resource types, and what they share (bindings, references)."""
