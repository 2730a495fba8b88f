"""Which nodes the graph picture draws: the whole graph around a node when it is small, else the nodes
a few hops from it (inputs and consumers), so a drawing stays readable on a terminal."""

from __future__ import annotations

from collections.abc import Callable, Iterable

# At most this many boxes in one picture (a pass this small is drawn whole).
PICTURE_LIMIT = 40


def neighbourhood(
    center: int,
    inputs_of: Callable[[int], Iterable[int]],
    consumers_of: Callable[[int], Iterable[int]],
    limit: int = PICTURE_LIMIT,
) -> tuple[list[int], bool]:
    """The node ids to draw around `center` (ascending: creation order), and whether they are all
    the nodes connected to it. Hops go both ways (an input's other consumers are one hop further);
    a ring of hops is taken whole or not at all, except the first, cut at `limit`."""
    shown = {center}
    ring = [center]
    while ring:
        seen: dict[int, None] = {}  # the next ring, in the order found
        for node in ring:
            for other in (*inputs_of(node), *consumers_of(node)):
                if other not in shown:
                    seen[other] = None
        following = list(seen)
        if not following:
            return sorted(shown), True
        if len(shown) + len(following) > limit:
            if len(shown) == 1:
                shown.update(following[: limit - 1])
            return sorted(shown), False
        shown.update(following)
        ring = following
    return sorted(shown), True
