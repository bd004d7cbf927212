"""Information-set invariance: no answer depends on a card its viewer cannot see (docs/threat-model.md)."""
