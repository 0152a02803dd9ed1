"""The entity page's graph: one entity in the middle, the entities mentioned with it
around it, drawn as SVG links one can click (or tab to) through. A pure layout: the
more often two entities are mentioned together, the closer and the thicker the line."""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Edge", "Node", "layout"]

#: The drawing's size (SVG user units); the centre is the entity of the page.
WIDTH = 640
HEIGHT = 420


@dataclass(frozen=True)
class Node:
    entity_id: str
    name: str
    type: str
    x: float
    y: float
    weight: int
    centre: bool = False


@dataclass(frozen=True)
class Edge:
    x1: float
    y1: float
    x2: float
    y2: float
    width: float


def layout(
    centre: tuple[str, str, str], neighbours: list[tuple[str, str, str, int]]
) -> tuple[list[Node], list[Edge]]:
    """Place ``centre`` (id, name, type) and its ``neighbours`` (id, name, type, times
    mentioned together; most first) on a circle around it: the most mentioned nearest,
    spread evenly by angle, starting at the top, clockwise."""
    cx, cy = WIDTH / 2, HEIGHT / 2
    nodes = [Node(centre[0], centre[1], centre[2], cx, cy, 0, centre=True)]
    edges = []
    most = max((n[3] for n in neighbours), default=1)
    for index, (entity_id, name, kind, together) in enumerate(neighbours):
        angle = -math.pi / 2 + 2 * math.pi * index / max(len(neighbours), 1)
        reach = 0.55 + 0.4 * (1 - together / most)  # the closest at 55% of the way out
        x = cx + math.cos(angle) * (WIDTH / 2 - 70) * reach
        y = cy + math.sin(angle) * (HEIGHT / 2 - 30) * reach
        nodes.append(Node(entity_id, name, kind, round(x, 1), round(y, 1), together))
        edges.append(Edge(cx, cy, round(x, 1), round(y, 1), round(1 + 4 * together / most, 1)))
    return nodes, edges
