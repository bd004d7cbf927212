"""The game-independent core: cards, the seeded shuffle, chance, the game protocol, replay."""
