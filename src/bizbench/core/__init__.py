"""Core building blocks shared by every env: rng streams, ledger, tool registry, presets."""
