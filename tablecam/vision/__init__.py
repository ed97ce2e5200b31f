"""Frame -> Observation for each game (ARCHITECTURE.md). Knows the pieces, not the rules."""
