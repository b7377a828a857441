"""Card structures of the three Ages, in the prompt's slot indexing (left to right, top to bottom).

Tables as in docs/rules.md §5. ``COVERED_BY[age][slot]`` lists the slots lying on
top of ``slot``; ``COVERS`` is its inverse, used to free cards when a slot is taken.
"""

from __future__ import annotations

from typing import Final

_AGE1_COVERED_BY: tuple[tuple[int, ...], ...] = (
    (2, 3), (3, 4),
    (5, 6), (6, 7), (7, 8),
    (9, 10), (10, 11), (11, 12), (12, 13),
    (14, 15), (15, 16), (16, 17), (17, 18), (18, 19),
    (), (), (), (), (), (),
)
_AGE1_FACE_UP: tuple[int, ...] = (0, 1, 5, 6, 7, 8, 14, 15, 16, 17, 18, 19)

_AGE2_COVERED_BY: tuple[tuple[int, ...], ...] = (
    (6,), (6, 7), (7, 8), (8, 9), (9, 10), (10,),
    (11,), (11, 12), (12, 13), (13, 14), (14,),
    (15,), (15, 16), (16, 17), (17,),
    (18,), (18, 19), (19,),
    (), (),
)
_AGE2_FACE_UP: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 11, 12, 13, 14, 18, 19)

_AGE3_COVERED_BY: tuple[tuple[int, ...], ...] = (
    (2, 3), (3, 4),
    (5, 6), (6, 7), (7, 8),
    (9,), (9,), (10,), (10,),
    (11, 12), (13, 14),
    (15,), (15, 16), (16, 17), (17,),
    (18,), (18, 19), (19,),
    (), (),
)
_AGE3_FACE_UP: tuple[int, ...] = (0, 1, 5, 6, 7, 8, 11, 12, 13, 14, 18, 19)


def _invert(covered_by: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
    covers: list[list[int]] = [[] for _ in covered_by]
    for slot, tops in enumerate(covered_by):
        for top in tops:
            covers[top].append(slot)
    return tuple(tuple(c) for c in covers)


# Indexed by age - 1.
COVERED_BY: Final = (_AGE1_COVERED_BY, _AGE2_COVERED_BY, _AGE3_COVERED_BY)
COVERS: Final = tuple(_invert(c) for c in COVERED_BY)
FACE_UP_MASK: Final = tuple(sum(1 << s for s in up)
                            for up in (_AGE1_FACE_UP, _AGE2_FACE_UP, _AGE3_FACE_UP))
N_SLOTS: Final = 20
ALL_SLOTS_MASK: Final = (1 << N_SLOTS) - 1

for _table in COVERED_BY:
    assert len(_table) == N_SLOTS
