"""The rules of the game: cards, sheets, problems as data, the state machine and its events."""
