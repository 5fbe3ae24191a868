"""Sample records shared by several test modules."""

from __future__ import annotations

from typing import Any, Final

# The smallest valid record: a deal, the exchange and the special number, no trick yet.
RECORD: Final[dict[str, Any]] = {
    "format": "phantom-log/1",
    "game_id": "g1",
    "players": {"phantom": "Kim", "christine": "Lee"},
    "sheet": "rulebook",
    "rounds": [
        {
            "deal": {
                "phantom": ["Ma5", "Ch4", "Ch3", "Mi1", "Mi2", "Ri2", "Ri3", "Ma1", "Ma2", "Mi4"],
                "christine": ["Ma6", "Ch5", "Ri5", "Ch1", "Ch6", "Ri1", "Mi5", "Mi6", "Ri4", "Ma3"],
            },
            "exchange": {"phantom": "Ch3", "christine": "Ri5"},
            "special_number": 3,
            "tricks": [],
        }
    ],
}
