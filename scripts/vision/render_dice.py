"""Photoreal dice scenes, rendered with Blender's Python module (bpy, Cycles on the CPU):
the data engine for the reader's models (issue 65).

Each scene is made from its seed alone: dice (pips, chance cubes, symbol dice; every size,
edge, body and mark), dropped with Blender's rigid-body physics into a tray or onto a
table among clutter, lit by lamps of 2700-6500 K, seen by a camera from straight down
to 45 degrees through a 24-50 mm lens. Each die is labelled from its pose after the drop:
its value (the face whose normal points up), kind, the box of its whole silhouette and of
its top face, the share of its top face hidden (rays from the camera), and whether it
lies cocked. Sensor noise, white balance, blur and JPEG are left to training, which draws
them anew for every sample. A picture is --side (384) px wide, or wider (up to 1280, a
frame's width) where the camera stands back for a spread-out throw, so that a die is at
least MIN_DIE_PX across: a real frame has those pixels.

    /path/to/bpy-venv/bin/python scripts/vision/render_dice.py --out ~/renders/train --count 2000
    ... --split heldout --out ~/renders/heldout --count 200   (styles no training render uses)
    ... --split chance --out ~/renders/chance --count 1500    (training styles, chance cubes only)
    ... --split low --out ~/renders/low --count 600           (training styles, pip dice, a low camera)
    ... --split heldout-low --out ~/renders/heldout-low --count 150   (held-out styles, the same)

The cache lives outside the repository: OUT/images/SPLIT_NNNNNN.jpg and OUT/manifest.jsonl
(with --empty, OUT/images/SPLIT_NNNNNN_empty.jpg and OUT/empty.jsonl), one line a scene,
appended once its image is written, so a run that is stopped resumes where it was and a
lost cache is made again from the same seeds (scene i of a split is seed SPLIT_SEED[split]
+ i). Each line names the renderer's version (RENDERER); a cache holds one
version, so a changed renderer renders into a new folder. `dataset.load_renders(OUT)` reads
it in the sets' format. bpy is a dev-only extra (pyproject [render]): never a runtime
dependency, never on the Pi.
Needs bpy 5.0 (Python 3.11), numpy and OpenCV; glyphs.py draws the symbol sets.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import math
import os
import random
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import glyphs  # noqa: E402  (random symbol sets; no tested set is drawn)
import legibility  # noqa: E402  (how far a die's marks stand out in its picture)

#: Scene i of a split is drawn from seed SPLIT_SEED[split] + i: the splits never share a scene.
#: The renderer's version, written with each scene: a cache holds one version (see main).
#: 2: a picture wide enough that a die's side is MIN_DIE_PX; translucent chance cubes frosted.
#: 3: a die's marks stand out from the body colour it is rendered with (2 chose them for
#: another colour, drawn apart: dark pips on dark dice).
#: 4: the camera white-balances most of the lamps' cast; no AgX on half the scenes it had
#: (its hue shift drew bright blue faces pink); a chance cube's red and blue made linear
#: (taken as linear, they rendered pale: a blue of sRGB 0.3-0.95 came out 0.6-0.98).
#: 5: a tilted camera keeps the table's far side up (camera_turn); 4 turned it any way, a
#: view the reader is not built for (docs/vision.md, "Which way is up"). A scene whose
#: camera is within UPRIGHT_TILT of straight down is the same picture in 4 and 5.
RENDERER = 5
MIN_DIE_PX = 20  # a die's side in pixels, at least (the picture grows, up to MAX_SIDE)
MAX_SIDE = 1280  # as wide as the frames the companion reads
#: The "chance" split draws training styles, but every scene is of chance cubes: more cubes
#: for the chance colour model a render. The train and heldout splits draw as before, so it
#: needs no new version. (At commit f189491 it drew paler reds and blues too, saturation
#: down to 0.3 and 0.22: the colour model trained on them lost; docs/decisions.md,
#: 2026-12-07. A chance cache made then holds those cubes: render into a new folder.)
#: The "low" split draws training styles too, every scene of pip dice, the camera 45-65
#: degrees from straight down: a phone held at the table, whose dice show their side faces
#: nearly as large as their tops (epanemu-table's look). Its draws add to train's, so the
#: other splits' scenes are as they were.
#: "heldout-low" is the low split's held-out twin: held-out styles, pip dice, a low camera.
SPLIT_SEED = {"train": 0, "heldout": 50_000_000, "chance": 100_000_000, "low": 150_000_000,
              "heldout-low": 200_000_000}
LOW_TILT = (45.0, 65.0)
LOW_SPLITS = ("low", "heldout-low")
HELD_SPLITS = ("heldout", "heldout-low")  # the splits of held-out styles (test-only caches)
#: A chance cube's red and blue: HSV ranges (hue, saturation, value).
CHANCE_SHADES = {"red": ((-0.04, 0.03), (0.6, 1.0), (0.45, 1.0)), "blue": ((0.55, 0.7), (0.5, 1.0), (0.3, 0.95))}
#: Styles only held-out renders use, so a model is judged on looks it never trained on.
HELD_OUT = {
    "body": ("glitter", "wood"),
    "surface": ("playmat",),
    "symbols": 1000,  # symbol sets drawn from seeds at or above this; training uses those below
}
BODIES = ("ivory", "white", "black", "colour", "colour", "marbled", "translucent", "metallic", "bone",
          "glitter", "wood")
SURFACES = ("felt", "felt", "cloth", "wood", "board", "playmat")
# Each face's value, by its outward normal in the die's own frame: opposite faces sum to 7.
FACE_NORMALS = ((0, 0, 1), (0, 0, -1), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0))
FACE_VALUES = (1, 6, 2, 5, 3, 4)
COCKED = math.cos(math.radians(12))  # a die whose top normal leans more than this is cocked
PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}
CELL = 128  # texture pixels per face
EMPTY = "empty.jsonl"  # a cache's empty-table photos (--empty), one line a scene


def held_out(split: str) -> bool:
    """Whether a split draws the held-out styles (a test-only render cache)."""
    return split in HELD_SPLITS


@dataclass(frozen=True)
class DieStyle:
    """How one die looks: what the scene's random draw chose."""

    kind: str  # "pip", "chance", "symbol"
    body: str
    size_cm: float
    bevel: float  # edge radius, share of the side
    mark: str  # pip/symbol colour name: black, white, red, gold, ...
    pip_shape: str  # round, square
    drilled: bool  # marks cut into the face (bump) or printed flat
    big_one: bool  # a big or red one
    rgb: tuple[float, float, float]  # the body's colour (sRGB 0-1), its marks chosen for it
    symbols: int | None = None  # the symbol set's seed


# --- drawing the faces ------------------------------------------------------------------


def _face_mask(style: DieStyle, value, rng: random.Random,
               glyph_set: dict[int, np.ndarray] | None) -> tuple[np.ndarray, np.ndarray]:
    """CELL x CELL float mask of one face's marks (1 = mark), and which mark each texel is
    (uint8: 0 the bare face, k the k-th pip; a symbol is one mark)."""
    import cv2

    mask = np.zeros((CELL, CELL), np.float32)
    ids = np.zeros((CELL, CELL), np.uint8)
    if style.kind == "chance":
        return mask, ids
    if style.kind == "symbol":
        g = cv2.resize(glyph_set[value], (int(CELL * 0.7), int(CELL * 0.7)), interpolation=cv2.INTER_AREA)
        o = (CELL - g.shape[0]) // 2
        mask[o:o + g.shape[0], o:o + g.shape[1]] = g
        ids[mask >= 0.5] = 1
        return mask, ids
    spread = CELL * rng.uniform(0.26, 0.31)
    radius = CELL * (rng.uniform(0.16, 0.22) if value == 1 and style.big_one else rng.uniform(0.075, 0.1))
    for k, (x, y) in enumerate(PIPS[value], 1):
        cx, cy = CELL / 2 + x * spread, CELL / 2 + y * spread
        if style.pip_shape == "square":
            r = radius * 0.9
            cv2.rectangle(mask, (int(cx - r), int(cy - r)), (int(cx + r), int(cy + r)), 1.0, -1, cv2.LINE_AA)
            cv2.rectangle(ids, (int(cx - r), int(cy - r)), (int(cx + r), int(cy + r)), k, -1)
        else:
            cv2.circle(mask, (int(round(cx * 4)), int(round(cy * 4))), int(radius * 4), 1.0, -1, cv2.LINE_AA, 2)
            cv2.circle(ids, (int(round(cx * 4)), int(round(cy * 4))), int(radius * 4), k, -1, cv2.LINE_8, 2)
    return mask, ids


def _atlas(style: DieStyle, rng: random.Random, glyph_set, tints) -> tuple[np.ndarray, list[np.ndarray]]:
    """The die's texture: a 3 x 2 grid of faces (FACE_VALUES order), RGBA float; RGB the
    face's tint (a chance cube's red or blue; white elsewhere), A its marks. And each
    face's mark ids (_face_mask), in FACE_VALUES order."""
    out = np.ones((2 * CELL, 3 * CELL, 4), np.float32)
    ids = []
    for i, value in enumerate(FACE_VALUES):
        r, c = divmod(i, 3)
        cell = out[r * CELL:(r + 1) * CELL, c * CELL:(c + 1) * CELL]
        cell[..., :3] = tints[i]
        cell[..., 3], face_ids = _face_mask(style, value, rng, glyph_set)
        ids.append(face_ids)
    return out, ids


# --- Blender: materials -------------------------------------------------------------------


def kelvin_rgb(k: float) -> tuple[float, float, float]:
    """A black body's colour at k kelvin, as linear RGB scaled to a peak of 1 (Tanner Helland's fit)."""
    t = k / 100
    r = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    g = 99.47 * math.log(t) - 161.1 if t <= 66 else 288.1 * (t - 60) ** -0.0755
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5 * math.log(t - 10) - 305.0)
    rgb = [min(255.0, max(0.0, v)) / 255 for v in (r, g, b)]
    lin = [c ** 2.2 for c in rgb]
    peak = max(lin)
    return tuple(c / peak for c in lin)


def _srgb(rgb) -> tuple[float, float, float, float]:
    return tuple(float(c) ** 2.2 for c in rgb) + (1.0,)


def _hsv(h: float, s: float, v: float):
    import colorsys

    return colorsys.hsv_to_rgb(h % 1.0, s, v)


MARK_CONTRAST = 0.3  # a mark's lightness differs from its body's by this much, at least
MARKS = {"black": (0.03, 0.03, 0.03), "white": (0.93, 0.93, 0.9), "red": (0.75, 0.05, 0.05),
         "gold": (0.85, 0.65, 0.2), "blue": (0.1, 0.2, 0.7), "green": (0.1, 0.5, 0.15)}


def _body_colour(rng: random.Random, body: str):
    if body == "ivory":
        return (0.92, 0.88, 0.76)
    if body == "white":
        return (0.95, 0.95, 0.95)
    if body == "black":
        return (0.04, 0.04, 0.045)
    if body == "bone":
        return (0.85, 0.8, 0.66)
    if body == "wood":
        return _hsv(rng.uniform(0.05, 0.1), rng.uniform(0.45, 0.75), rng.uniform(0.3, 0.7))
    if body == "metallic":
        return rng.choice([(0.9, 0.72, 0.35), (0.85, 0.85, 0.88), (0.85, 0.5, 0.35), (0.3, 0.3, 0.32)])
    neon = rng.random() < 0.3
    return _hsv(rng.random(), rng.uniform(0.7, 1.0) if neon else rng.uniform(0.3, 0.9),
                rng.uniform(0.8, 1.0) if neon else rng.uniform(0.25, 0.95))


def lightness(rgb) -> float:
    """Relative lightness of an sRGB colour, 0-1 (Rec. 601 weights)."""
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


def _mark_for(rng: random.Random, body: str, colour) -> str:
    """The marks' colour for a body of `colour`: one that stands out from it (MARK_CONTRAST),
    as a maker paints them; black or white where no other does."""
    light = lightness(colour) > 0.45
    if body == "metallic":
        options = ["black", "white"]
    elif body == "black" or not light:
        options = ["white", "white", "gold", "red"]
    else:
        options = ["black", "black", "black", "red", "gold", "blue", "green"]
    options = [m for m in options if abs(lightness(MARKS[m]) - lightness(colour)) >= MARK_CONTRAST]
    return rng.choice(options or (["black"] if light else ["white"]))


def balanced(rgb, white, share: float) -> tuple[float, float, float]:
    """`rgb` as a camera balancing `share` of the cast of a light of colour `white` records
    it (both linear), scaled to a peak of 1 as kelvin_rgb's."""
    out = [c * w ** -share for c, w in zip(rgb, white)]
    return tuple(c / max(out) for c in out)


def white_balance(bpy, scene, kelvin: float, share: float) -> None:
    """The camera's white balance: `share` of the lamps' cast at `kelvin` taken out, as the Pi
    camera's and a phone's auto white balance do, from every lamp and the world's light (a
    cast left or got wrong is drawn in training, and read by benchmarks/vision.py --shift
    warm/cool). Last of a scene's draws, so the draws before it stay as they were."""
    white = kelvin_rgb(kelvin)
    for light in bpy.data.lights:
        light.color = balanced(tuple(light.color), white, share)
    background = scene.world.node_tree.nodes["Background"].inputs["Color"]
    background.default_value = balanced(tuple(background.default_value)[:3], white, share) + (1.0,)


def die_material(bpy, name: str, style: DieStyle, atlas_image, rng: random.Random):
    """A Principled material: body (solid, marbled, translucent, glitter, metallic, wood,
    bone) tinted by the atlas, its marks by the atlas's alpha (drilled: bumped in too)."""
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nt = mat.node_tree
    nodes, links = nt.nodes, nt.links
    bsdf = nodes["Principled BSDF"]
    tex = nodes.new("ShaderNodeTexImage")
    tex.image = atlas_image
    tex.interpolation = "Linear"
    _body_colour(rng, style.body)  # the style holds the colour; drawn still, so later draws stay as they were
    colour = style.rgb
    body = nodes.new("ShaderNodeRGB")
    body.outputs[0].default_value = _srgb(colour)
    body_out = body.outputs[0]
    if style.body in ("marbled", "wood", "glitter", "bone"):
        other = _body_colour(rng, "colour" if style.body in ("marbled", "glitter") else style.body)
        if style.body == "bone":
            other = tuple(c * 0.8 for c in colour)
        if style.body == "wood":
            pattern = nodes.new("ShaderNodeTexWave")
            pattern.inputs["Scale"].default_value = rng.uniform(2, 6)
            pattern.inputs["Distortion"].default_value = rng.uniform(2, 8)
            other = tuple(c * 0.55 for c in colour)
        elif style.body == "glitter":
            pattern = nodes.new("ShaderNodeTexVoronoi")
            pattern.inputs["Scale"].default_value = rng.uniform(60, 160)
        else:
            pattern = nodes.new("ShaderNodeTexNoise")
            pattern.inputs["Scale"].default_value = rng.uniform(1.5, 5)
            pattern.inputs["Detail"].default_value = rng.uniform(4, 12)
            pattern.inputs["Distortion"].default_value = rng.uniform(0.5, 4)
        coords = nodes.new("ShaderNodeTexCoord")
        links.new(coords.outputs["Object"], pattern.inputs["Vector"])
        ramp = nodes.new("ShaderNodeValToRGB")
        ramp.color_ramp.elements[0].color = _srgb(colour)
        ramp.color_ramp.elements[1].color = _srgb(other)
        ramp.color_ramp.elements[0].position = rng.uniform(0.3, 0.5)
        ramp.color_ramp.elements[1].position = rng.uniform(0.55, 0.75)
        links.new(pattern.outputs[1 if style.body == "glitter" else 0], ramp.inputs[0])
        body_out = ramp.outputs[0]
    tinted = nodes.new("ShaderNodeMix")
    tinted.data_type = "RGBA"
    tinted.blend_type = "MULTIPLY"
    tinted.inputs["Factor"].default_value = 1.0
    links.new(body_out, tinted.inputs[6])
    links.new(tex.outputs["Color"], tinted.inputs[7])
    mark = nodes.new("ShaderNodeRGB")
    mark.outputs[0].default_value = _srgb(MARKS[style.mark])
    final = nodes.new("ShaderNodeMix")
    final.data_type = "RGBA"
    links.new(tex.outputs["Alpha"], final.inputs["Factor"])
    links.new(tinted.outputs[2], final.inputs[6])
    links.new(mark.outputs[0], final.inputs[7])
    links.new(final.outputs[2], bsdf.inputs["Base Color"])
    bsdf.inputs["Roughness"].default_value = rng.uniform(0.15, 0.55)
    if style.body == "metallic":
        bsdf.inputs["Metallic"].default_value = 1.0
        bsdf.inputs["Roughness"].default_value = rng.uniform(0.15, 0.4)
    if style.mark == "gold":  # gold paint shines; other marks are matte
        metal = nodes.new("ShaderNodeMath")
        metal.operation = "MULTIPLY"
        metal.inputs[1].default_value = 0.9
        links.new(tex.outputs["Alpha"], metal.inputs[0])
        links.new(metal.outputs[0], bsdf.inputs["Metallic"])
    if style.body == "translucent":
        clear = nodes.new("ShaderNodeMath")  # the marks stay opaque
        clear.operation = "MULTIPLY_ADD"
        clear.inputs[1].default_value = -rng.uniform(0.6, 0.95)
        clear.inputs[2].default_value = rng.uniform(0.6, 0.95)
        if style.kind == "chance":  # frosted: a chance cube's red or blue shows, not the table through it
            clear.inputs[1].default_value *= 0.4
            clear.inputs[2].default_value *= 0.4
        links.new(tex.outputs["Alpha"], clear.inputs[0])
        links.new(clear.outputs[0], bsdf.inputs["Transmission Weight"])
        bsdf.inputs["Roughness"].default_value = rng.uniform(0.02, 0.2)
    if style.body == "glitter":
        bsdf.inputs["Coat Weight"].default_value = 1.0
    if style.drilled or style.kind == "symbol":
        bump = nodes.new("ShaderNodeBump")
        bump.inputs["Strength"].default_value = rng.uniform(0.3, 1.0)
        bump.invert = style.drilled
        links.new(tex.outputs["Alpha"], bump.inputs["Height"])
        links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    return mat


def surface_material(bpy, name: str, kind: str, rng: random.Random):
    """Felt, cloth (a tartan of two waves), wood, a printed board, or a playmat's print."""
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes["Principled BSDF"]
    coords = nodes.new("ShaderNodeTexCoord")
    a = _hsv(rng.random(), rng.uniform(0.2, 1.0), rng.uniform(0.1, 0.9))
    b = _hsv(rng.random(), rng.uniform(0.1, 0.9), rng.uniform(0.05, 0.95))
    ramp = nodes.new("ShaderNodeValToRGB")
    ramp.color_ramp.elements[0].color = _srgb(a)
    ramp.color_ramp.elements[1].color = _srgb(b)
    if kind == "felt":
        pattern = nodes.new("ShaderNodeTexNoise")
        pattern.inputs["Scale"].default_value = rng.uniform(20, 80)
        ramp.color_ramp.elements[1].color = _srgb(tuple(c * rng.uniform(0.8, 1.0) for c in a))
        bsdf.inputs["Roughness"].default_value = 1.0
    elif kind == "cloth":
        pattern = nodes.new("ShaderNodeTexWave")
        pattern.wave_type = "BANDS"
        pattern.inputs["Scale"].default_value = rng.uniform(0.5, 3)
        ramp.color_ramp.interpolation = "CONSTANT"
        bsdf.inputs["Roughness"].default_value = 0.9
    elif kind == "wood":
        pattern = nodes.new("ShaderNodeTexWave")
        pattern.inputs["Scale"].default_value = rng.uniform(0.2, 0.8)
        pattern.inputs["Distortion"].default_value = rng.uniform(3, 12)
        brown = _hsv(rng.uniform(0.04, 0.11), rng.uniform(0.4, 0.8), rng.uniform(0.15, 0.7))
        ramp.color_ramp.elements[0].color = _srgb(brown)
        ramp.color_ramp.elements[1].color = _srgb(tuple(c * 0.6 for c in brown))
        bsdf.inputs["Roughness"].default_value = rng.uniform(0.3, 0.7)
    elif kind == "board":
        pattern = nodes.new("ShaderNodeTexVoronoi")
        pattern.inputs["Scale"].default_value = rng.uniform(0.05, 0.3)
        ramp.color_ramp.interpolation = "CONSTANT"
        bsdf.inputs["Roughness"].default_value = rng.uniform(0.3, 0.8)
    else:  # playmat: a printed picture (held out of training)
        pattern = nodes.new("ShaderNodeTexMagic")
        pattern.inputs["Scale"].default_value = rng.uniform(0.02, 0.1)
        pattern.inputs["Distortion"].default_value = rng.uniform(1, 4)
        bsdf.inputs["Roughness"].default_value = rng.uniform(0.4, 0.9)
    links.new(coords.outputs["Object"], pattern.inputs["Vector"])
    links.new(pattern.outputs[0] if kind != "board" else pattern.outputs[1], ramp.inputs[0])
    links.new(ramp.outputs[0], bsdf.inputs["Base Color"])
    return mat


def plain_material(bpy, name: str, rgb, roughness: float):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = _srgb(rgb)
    bsdf.inputs["Roughness"].default_value = roughness
    return mat


# --- Blender: objects ---------------------------------------------------------------------


def die_mesh(bpy, name: str, size: float, bevel: float):
    """A cube of side `size`, each face UV-mapped to its cell of the atlas, edges bevelled."""
    import bmesh

    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=size)
    uv = bm.loops.layers.uv.new("UVMap")
    for face in bm.faces:
        n = face.normal
        i = max(range(6), key=lambda k: sum(a * b for a, b in zip(n, FACE_NORMALS[k])))
        r, c = divmod(i, 3)
        axis = [abs(v) for v in FACE_NORMALS[i]].index(1)
        u_axis, v_axis = [a for a in range(3) if a != axis]
        for loop in face.loops:
            co = loop.vert.co
            u = (co[u_axis] / size + 0.5)
            v = (co[v_axis] / size + 0.5)
            loop[uv].uv = ((c + u) / 3, 1 - (r + 1 - v) / 2)
    if bevel > 0:
        bmesh.ops.bevel(bm, geom=list(bm.edges) + list(bm.verts), offset=bevel * size, segments=3,
                        profile=0.5, affect="EDGES")
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    for poly in mesh.polygons:
        poly.use_smooth = True
    return mesh


def add_object(bpy, name, mesh, material=None):
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    if material is not None:
        obj.data.materials.append(material)
    return obj


def box(bpy, name, sx, sy, sz, material=None):
    import bmesh

    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    bmesh.ops.scale(bm, vec=(sx, sy, sz), verts=bm.verts)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    return add_object(bpy, name, mesh, material)


def cylinder(bpy, name, radius, depth, segments=32, material=None):
    import bmesh

    bm = bmesh.new()
    bmesh.ops.create_cone(bm, cap_ends=True, segments=segments, radius1=radius, radius2=radius, depth=depth)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    return add_object(bpy, name, mesh, material)


def rigid(bpy, obj, kind: str, shape: str, *, mass=1.0, friction=0.5, bounce=0.3):
    bpy.context.view_layer.objects.active = obj
    obj.select_set(True)
    bpy.ops.rigidbody.object_add(type=kind)
    obj.select_set(False)
    body = obj.rigid_body
    body.collision_shape = shape
    body.mass = mass
    body.friction = friction
    body.restitution = bounce
    body.use_margin = True
    body.collision_margin = 0.01
    return body


# --- one scene ----------------------------------------------------------------------------


def chance_shades(rng: random.Random) -> tuple[tuple, tuple]:
    """A chance cube's red and blue (sRGB 0-1) from CHANCE_SHADES: red's hue, saturation and
    value drawn, then blue's (the draws renderer 5 made)."""
    red, blue = (_hsv(*(rng.uniform(*r) for r in CHANCE_SHADES[name])) for name in ("red", "blue"))
    return red, blue


def draw_styles(rng: random.Random, split: str, n: int) -> tuple[str, list[DieStyle]]:
    """The scene's kind and each die's style. Training draws no held-out style; a held-out
    scene draws held-out bodies, surfaces and symbol sets wherever it can."""
    held = held_out(split)
    kind = rng.choices(["pip", "chance", "symbol"], [0.6, 0.2, 0.2])[0]
    if split == "chance":
        kind = "chance"
    if split in LOW_SPLITS:
        kind = "pip"
    bodies = [b for b in BODIES if (b in HELD_OUT["body"]) == held] if held else \
        [b for b in BODIES if b not in HELD_OUT["body"]]
    if held:
        bodies = list(HELD_OUT["body"]) + ["translucent", "marbled"]
    symbols = (rng.randrange(HELD_OUT["symbols"], 10 * HELD_OUT["symbols"]) if held
               else rng.randrange(HELD_OUT["symbols"])) if kind == "symbol" else None
    uniform = rng.random() < 0.5  # one set of dice, or a mixed handful
    size = rng.uniform(1.2, 2.5)

    def one() -> DieStyle:
        body = rng.choice(bodies) if kind != "chance" else rng.choice(["white", "white", "ivory", "translucent"])
        colour = _body_colour(random.Random(rng.random()), body)
        if kind == "chance" and body == "translucent":  # clear: its faces' red and blue are its colour
            colour = _body_colour(rng, "white")
        return DieStyle(kind=kind, body=body, size_cm=size * (1 if uniform else rng.uniform(0.75, 1.25)),
                        bevel=rng.choice([0.04, 0.08, 0.12, 0.18]), mark=_mark_for(rng, body, colour), rgb=colour,
                        pip_shape=rng.choice(["round"] * 5 + ["square"]), drilled=rng.random() < 0.6,
                        big_one=rng.random() < 0.15, symbols=symbols)

    first = one()
    return kind, [first if uniform else one() for _ in range(n)]


#: A camera tilted more than this has an up: the table's far side at the top of its picture
#: (a stand's or a hand's camera; `[camera] turn` takes out quarter turns), turned at most
#: UPRIGHT_TURN either way. Nearer straight down, any turn: the reader expects no up there.
UPRIGHT_TILT = 8.0
UPRIGHT_TURN = 15.0


def camera_turn(rng: random.Random, tilt_deg: float) -> float:
    """The camera's turn about its view (radians), by its tilt (one draw either way)."""
    if tilt_deg < UPRIGHT_TILT:
        return rng.uniform(-math.pi, math.pi)
    return rng.uniform(-1.0, 1.0) * math.radians(UPRIGHT_TURN)


def camera_tilt(rng: random.Random, split: str) -> float:
    """The camera's tilt from straight down, in degrees: none, slight or up to 45 (a third
    each), or, in the low splits, LOW_TILT (drawn after the others' draws, so scene i of the
    other splits is the same scene it was)."""
    tilt = rng.choice([0, rng.uniform(0, 20), rng.uniform(20, 45)])
    return rng.uniform(*LOW_TILT) if split in LOW_SPLITS else tilt


def picture_width(side: int, distance: float, size_cm: float, lens_mm: float) -> int:
    """The picture's width: `side`, or more (a multiple of 8, at most MAX_SIDE) so that a die
    of `size_cm` seen straight down from `distance` cm through a `lens_mm` lens (36 mm
    sensor) is MIN_DIE_PX across."""
    needed = MIN_DIE_PX * distance * 36 / (size_cm * lens_mm)
    return min(MAX_SIDE, max(side, 8 * math.ceil(needed / 8)))


def build_and_render(bpy, seed: int, split: str, out_image: Path, side: int, samples: int, threads: int,
                     empty_image: Path | None = None) -> dict:
    """Build scene `seed`, drop its dice, render it to `out_image`; its labels. With
    `empty_image`, the same view without the dice is rendered there too: the empty-table
    photo a table takes at set-up, with the camera and light of the throw."""
    import cv2
    from bpy_extras.object_utils import world_to_camera_view
    from mathutils import Euler, Vector

    rng = random.Random(seed)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.unit_settings.scale_length = 0.01  # one unit is a centimetre: Bullet likes sizes near 1
    scene.gravity = (0, 0, -981.0)
    held = held_out(split)

    # the table and the tray
    surfaces = [s for s in SURFACES if (s in HELD_OUT["surface"]) == held] if held else \
        [s for s in SURFACES if s not in HELD_OUT["surface"]]
    surface = rng.choice(surfaces) if not held or rng.random() < 0.6 else rng.choice(SURFACES[:-1])
    ground = box(bpy, "table", 300, 300, 1, surface_material(bpy, "table", surface, rng))
    ground.location = (0, 0, -0.5)
    rigid(bpy, ground, "PASSIVE", "BOX", friction=0.7, bounce=0.2)
    tray = rng.random() < 0.55
    radius = rng.uniform(9, 16)
    floor_kind = "none"
    if tray:
        sides = rng.choice([4, 6, 6, 24])
        floor_kind = rng.choice(["felt", "felt", "cloth", "board"]) if not held else rng.choice(["felt", "playmat"])
        floor = cylinder(bpy, "tray-floor", radius, 0.3, sides, surface_material(bpy, "tray", floor_kind, rng))
        floor.location = (0, 0, 0.15)
        floor.rotation_euler = (0, 0, math.pi / sides)
        rigid(bpy, floor, "PASSIVE", "MESH", friction=0.8, bounce=0.15)
        wall_mat = plain_material(bpy, "wall", _hsv(rng.random(), rng.uniform(0, 0.8), rng.uniform(0.05, 0.8)),
                                  rng.uniform(0.3, 0.8))
        height = rng.uniform(2, 4)
        for k in range(sides):
            a = 2 * math.pi * (k + 0.5) / sides
            length = 2 * radius * math.tan(math.pi / sides) + 1.0
            wall = box(bpy, f"wall{k}", length, 0.8, height, wall_mat)
            wall.location = ((radius + 0.4) * math.cos(a), (radius + 0.4) * math.sin(a), height / 2)
            wall.rotation_euler = (0, 0, a + math.pi / 2)
            rigid(bpy, wall, "PASSIVE", "BOX", friction=0.5, bounce=0.3)
    top = 0.3 if tray else 0.0

    # clutter beside the dice: cards, chips, a cup
    for k in range(rng.choice([0, 0, 1, 2, 3, 4])):
        a, d = rng.uniform(0, 2 * math.pi), rng.uniform(radius + 3, radius + 14)
        what = rng.choice(["card", "chip", "chip", "cup"])
        colour = _hsv(rng.random(), rng.uniform(0, 1), rng.uniform(0.2, 1))
        if what == "card":
            thing = box(bpy, f"card{k}", 6.3, 8.8, 0.05, plain_material(bpy, f"card{k}", colour, 0.4))
            thing.location = (d * math.cos(a), d * math.sin(a), 0.03)
        elif what == "chip":
            thing = cylinder(bpy, f"chip{k}", 2.0, 0.33, 32, plain_material(bpy, f"chip{k}", colour, 0.5))
            thing.location = (d * math.cos(a), d * math.sin(a), 0.17)
        else:
            thing = cylinder(bpy, f"cup{k}", 4.5, 10, 40, plain_material(bpy, f"cup{k}", colour, 0.6))
            thing.location = (d * math.cos(a), d * math.sin(a), 5)
        thing.rotation_euler = (0, 0, rng.uniform(0, math.pi))

    # the dice, dropped
    n = rng.choices([1, 2, 3, 4, 5, 6, rng.randint(7, 12), rng.randint(13, 25)],
                    [0.08, 0.1, 0.12, 0.12, 0.2, 0.14, 0.14, 0.1])[0]
    kind, styles = draw_styles(rng, split, n)
    glyph_sets: dict[int, dict[int, np.ndarray]] = {}
    dice = []
    spread = min(radius * 0.6, 2 + 1.2 * math.sqrt(n) * styles[0].size_cm) if tray else 2 + 1.5 * math.sqrt(n) * 2
    for k, style in enumerate(styles):
        glyph_set = None
        if style.symbols is not None:
            if style.symbols not in glyph_sets:
                glyph_sets[style.symbols] = glyphs.glyph_set(style.symbols)
            glyph_set = glyph_sets[style.symbols]
        if kind == "chance":
            red, blue = chance_shades(rng)
            reds = (0, 2, 4)  # faces of FACE_VALUES 1, 2, 3: no two opposite share a colour
            # the atlas holds linear colour (Non-Color): red and blue as drawn (sRGB), made linear
            tints = [_srgb(red if i in reds else blue)[:3] for i in range(6)]
        else:
            tints = [(1.0, 1.0, 1.0)] * 6
        atlas, mark_ids = _atlas(style, rng, glyph_set, tints)
        image = bpy.data.images.new(f"atlas{k}", atlas.shape[1], atlas.shape[0], alpha=True)
        image.colorspace_settings.name = "Non-Color"
        image.pixels.foreach_set(np.ascontiguousarray(atlas[::-1]).ravel())
        mesh = die_mesh(bpy, f"die{k}", style.size_cm, style.bevel)
        obj = add_object(bpy, f"die{k}", mesh, die_material(bpy, f"die{k}", style, image, rng))
        a, d = rng.uniform(0, 2 * math.pi), spread * math.sqrt(rng.random())
        obj.location = (d * math.cos(a), d * math.sin(a), top + 2 + k * 0.9 * style.size_cm + rng.uniform(0, 3))
        obj.rotation_euler = Euler((rng.uniform(0, 2 * math.pi), rng.uniform(0, 2 * math.pi), rng.uniform(0, 2 * math.pi)))
        rigid(bpy, obj, "ACTIVE", "BOX", mass=0.005 * style.size_cm ** 3, friction=rng.uniform(0.3, 0.7),
              bounce=rng.uniform(0.2, 0.5))
        dice.append((obj, style, mark_ids))
    world = scene.rigidbody_world
    world.substeps_per_frame = 20
    world.solver_iterations = 20
    frames = 110
    world.point_cache.frame_end = frames
    for f in range(1, frames + 1):
        scene.frame_set(f)
    bpy.context.view_layer.update()

    # camera: straight down to 45 degrees (the low splits: LOW_TILT), a 24-50 mm lens
    # (full-frame terms), the dice in view
    poses = [obj.matrix_world.copy() for obj, _, _ in dice]
    centre = sum((m.translation for m in poses), Vector()) / len(poses)
    extent = max((m.translation - centre).length for m in poses) + 2.5
    cam_data = bpy.data.cameras.new("camera")
    cam_data.lens = rng.uniform(24, 50)
    cam_data.sensor_width = 36
    camera = bpy.data.objects.new("camera", cam_data)
    scene.collection.objects.link(camera)
    scene.camera = camera
    tilt = math.radians(camera_tilt(rng, split))
    # near enough that a die is 12-70 px across (log-uniform), far enough that the throw fits
    focal_px = side * cam_data.lens / 36
    size = sum(s.size_cm for s in styles) / len(styles)
    die_px = math.exp(rng.uniform(math.log(12), math.log(70)))
    aspect = rng.choice([0.75, 0.75, 0.5625, 1.0])
    distance = max(size * focal_px / die_px, extent * focal_px / (0.45 * side * aspect))
    # a spread-out throw puts the camera far back: the picture grows, as a real 1280 px
    # frame has the pixels for it (framing and draws unchanged)
    side = picture_width(side, distance, size, cam_data.lens)
    heading = rng.uniform(0, 2 * math.pi)
    aim = centre + Vector((rng.uniform(-0.2, 0.2) * extent, rng.uniform(-0.2, 0.2) * extent, 0))
    offset = Vector((math.sin(tilt) * math.cos(heading), math.sin(tilt) * math.sin(heading), math.cos(tilt))) * distance
    camera.location = aim + offset
    camera.rotation_euler = (-offset).to_track_quat("-Z", "Y").to_euler()
    camera.rotation_euler.rotate_axis("Z", camera_turn(rng, math.degrees(tilt)))
    if rng.random() < 0.25:
        cam_data.dof.use_dof = True
        cam_data.dof.focus_distance = (aim - camera.location).length
        cam_data.dof.aperture_fstop = rng.uniform(1.4, 5.6)

    # light: a world that fills, lamps of 2700-6500 K, sometimes one hard lamp or a lamp's pool
    kelvin = rng.uniform(2700, 6500)
    bg = bpy.data.worlds.new("world")
    scene.world = bg
    bg.use_nodes = True
    bg.node_tree.nodes["Background"].inputs["Color"].default_value = tuple(kelvin_rgb(rng.uniform(3000, 7000))) + (1.0,)
    bg.node_tree.nodes["Background"].inputs["Strength"].default_value = rng.uniform(0.05, 0.6)
    lamps = []
    n_lamps = rng.choice([1, 1, 2, 3])
    for k in range(n_lamps):
        style = rng.choice(["area", "area", "point", "spot"])
        light = bpy.data.lights.new(f"lamp{k}", type=style.upper())
        light.color = kelvin_rgb(kelvin + rng.uniform(-300, 300))
        if style == "area":
            light.size = rng.uniform(10, 80)
            light.energy = rng.uniform(2e5, 1.2e6)
        elif style == "point":
            light.shadow_soft_size = rng.uniform(0.2, 3)  # a hard lamp
            light.energy = rng.uniform(1e5, 6e5)
        else:
            light.spot_size = math.radians(rng.uniform(25, 70))
            light.spot_blend = rng.uniform(0.1, 0.6)
            light.shadow_soft_size = rng.uniform(0.5, 5)
            light.energy = rng.uniform(2e5, 1e6)
        lamp = bpy.data.objects.new(f"lamp{k}", light)
        scene.collection.objects.link(lamp)
        a, h = rng.uniform(0, 2 * math.pi), rng.uniform(40, 120)
        r = rng.uniform(0, 80)
        lamp.location = centre + Vector((r * math.cos(a), r * math.sin(a), h))
        light.energy *= 0.6 * (h * h + r * r) / 80 ** 2 / n_lamps  # the same light on the table, near or far
        lamp.rotation_euler = (centre + Vector((rng.uniform(-10, 10), rng.uniform(-10, 10), 0)) - lamp.location) \
            .to_track_quat("-Z", "Y").to_euler()
        lamps.append(style)

    # render
    width = side
    height = int(round(side * aspect / 8)) * 8
    output = scene.render
    output.engine = "CYCLES"
    output.resolution_x, output.resolution_y = width, height
    output.resolution_percentage = 100
    output.threads_mode = "FIXED"
    output.threads = threads
    output.image_settings.file_format = "JPEG"
    output.image_settings.quality = 95
    output.filepath = str(out_image)
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    scene.cycles.use_denoising = True
    scene.cycles.max_bounces = 8
    scene.cycles.transmission_bounces = 8
    # a phone's tone curve, or none (AgX on a third only: it turns bright saturated blue pink)
    scene.view_settings.view_transform = rng.choice(["Khronos PBR Neutral", "AgX", "Standard"])
    scene.view_settings.exposure = rng.uniform(-0.6, 0.6)
    white_balance(bpy, scene, kelvin, rng.uniform(0.6, 1.0))
    bpy.ops.render.render(write_still=True)
    level = _median_level(out_image)
    if not 40 <= level <= 190:  # burnt out or black: as a camera's auto-exposure would, once more
        scene.view_settings.exposure += max(-4.0, min(4.0, math.log2(110 / max(level, 1.0))))
        bpy.ops.render.render(write_still=True)

    # labels, from each die's pose
    depsgraph = bpy.context.evaluated_depsgraph_get()
    labels = []
    lab = legibility.to_lab(cv2.imread(str(out_image)))
    for (obj, style, mark_ids), m in zip(dice, poses):
        rot = m.to_3x3()
        ups = [(rot @ Vector(n)).z for n in FACE_NORMALS]
        i = max(range(6), key=lambda k: ups[k])
        if kind == "chance":
            value = "red" if i in (0, 2, 4) else "blue"
        else:
            value = FACE_VALUES[i]
        half = style.size_cm / 2
        corners = [m @ Vector((sx * half, sy * half, sz * half)) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
        n_top = Vector(FACE_NORMALS[i])
        u = Vector(FACE_NORMALS[2 if i < 2 else 0])
        v = n_top.cross(u)
        top_pts = [m @ (n_top * half + (u * a + v * b) * half * 0.9) for a in (-1, 1) for b in (-1, 1)]
        box_all = _pixel_box(scene, camera, corners, world_to_camera_view, width, height)
        box_top = _pixel_box(scene, camera, top_pts, world_to_camera_view, width, height)
        hidden = _hidden_share(scene, depsgraph, camera, obj, m, n_top, u, v, half, world_to_camera_view)
        origin, marks = top_face_marks(scene, depsgraph, camera, obj, m, i, half, mark_ids[i], box_top, width, height)
        expected = 0 if kind == "chance" else 1 if kind == "symbol" else value
        labels.append({"kind": kind, "value": value, "box": box_all, "top_box": box_top,
                       "hidden": round(hidden, 3), "cocked": ups[i] < COCKED, "lean_deg": round(math.degrees(math.acos(min(1.0, ups[i]))), 1),
                       **legibility.measure(lab, origin, marks, expected), "style": asdict(style)})
    if empty_image is not None:
        for obj, _, _ in dice:
            obj.hide_render = True
        output.filepath = str(empty_image)
        bpy.ops.render.render(write_still=True)
    return {"kind": kind, "surface": surface, "tray": floor_kind if tray else None, "lamps": lamps,
            "kelvin": round(kelvin), "tilt_deg": round(math.degrees(tilt), 1),
            "upright": math.degrees(tilt) >= UPRIGHT_TILT, "lens_mm": round(cam_data.lens, 1),
            "size": [width, height], "dice_detail": labels}


def _median_level(path: Path) -> float:
    """The picture's median grey level, 0-255."""
    import cv2

    return float(np.median(cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)))


def _pixel_box(scene, camera, points, project, width, height):
    xs, ys = [], []
    for p in points:
        c = project(scene, camera, p)
        xs.append(c.x * width)
        ys.append((1 - c.y) * height)
    return [round(min(xs), 1), round(min(ys), 1), round(max(xs), 1), round(max(ys), 1)]


def _hidden_share(scene, depsgraph, camera, obj, m, n_top, u, v, half, project) -> float:
    """Share of a 5 x 5 grid on the top face that the camera does not see: out of the
    picture, or behind something else (a ray from the camera meets another object first)."""
    origin = camera.matrix_world.translation
    hidden = 0
    total = 0
    for a in np.linspace(-0.8, 0.8, 5):
        for b in np.linspace(-0.8, 0.8, 5):
            total += 1
            p = m @ (n_top * (half * 1.001) + (u * float(a) + v * float(b)) * half)
            c = project(scene, camera, p)
            if not (0 <= c.x <= 1 and 0 <= c.y <= 1 and c.z > 0):
                hidden += 1
                continue
            direction = (p - origin)
            dist = direction.length
            hit, loc, _, _, what, _ = scene.ray_cast(depsgraph, origin, direction.normalized(), distance=dist + 0.05)
            if hit and what is not None and what.name != obj.name and (loc - origin).length < dist - 0.05:
                hidden += 1
    return hidden / total


def top_face_marks(scene, depsgraph, camera, obj, m, face: int, half: float, ids: np.ndarray, box_top,
                   width: int, height: int) -> tuple[tuple[int, int], np.ndarray]:
    """What the camera sees of a die's top face, pixel by pixel over its box: one ray through
    each pixel's centre; -1 where it meets something else (another die, a side face, the
    table, the bevel but for its flattest step, within 2% of the face's plane), else the
    mark it meets (`ids`, the face's texels: 0 the bare face). Returns the window's top-left
    pixel and the window (legibility.measure's input). The held-out and training caches of
    renderer 5 were measured so: a change here is a change of their labels."""
    from mathutils import Vector

    x0, y0 = max(0, int(box_top[0])), max(0, int(box_top[1]))
    x1, y1 = min(width, int(math.ceil(box_top[2])) + 1), min(height, int(math.ceil(box_top[3])) + 1)
    out = np.full((max(0, y1 - y0), max(0, x1 - x0)), -1, np.int16)
    frame = camera.data.view_frame(scene=scene)  # the picture's corners, camera frame
    left, right = min(c.x for c in frame), max(c.x for c in frame)
    bottom, top = min(c.y for c in frame), max(c.y for c in frame)
    depth = frame[0].z
    turn = camera.matrix_world.to_3x3()
    origin = camera.matrix_world.translation
    inverse = m.inverted()
    normal = FACE_NORMALS[face]
    axis = [abs(c) for c in normal].index(1)
    u_axis, v_axis = [a for a in range(3) if a != axis]
    size = 2 * half
    for y in range(y0, y1):
        for x in range(x0, x1):
            ray = turn @ Vector((left + (x + 0.5) / width * (right - left), top - (y + 0.5) / height * (top - bottom), depth))
            hit, where, _, _, what, _ = scene.ray_cast(depsgraph, origin, ray.normalized())
            if not hit or what is None or what.name != obj.name:
                continue
            local = inverse @ where
            if local[axis] * normal[axis] < half * 0.98:  # a side face, or the bevel short of its flattest step
                continue
            col = min(CELL - 1, max(0, int((local[u_axis] / size + 0.5) * CELL)))
            row = min(CELL - 1, max(0, int((0.5 - local[v_axis] / size) * CELL)))
            out[y - y0, x - x0] = ids[row, col]
    return (x0, y0), out


# --- the cache ---------------------------------------------------------------------------


def append_line(manifest: Path, line: str) -> None:
    """Append one line to the manifest under its lock: renderers sharing a cache (--step)
    never mix their lines, and a tool that replaces the file whole under the lock (to mend a
    cache) is waited for, the line going to the file that replaced it."""
    while True:
        with manifest.open("a") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            if manifest.exists() and os.fstat(f.fileno()).st_ino == manifest.stat().st_ino:
                f.write(line + "\n")
                return


def cached_scenes(manifest: Path) -> list[dict]:
    """The manifest's whole lines, one a scene (a line cut short by a stop is left out: that
    scene is made again)."""
    scenes = []
    for line in manifest.read_text().splitlines() if manifest.exists() else ():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and "seed" in entry:
            scenes.append(entry)
    return scenes


def done_seeds(scenes: list[dict]) -> set[int]:
    """The seeds of a cache's scenes (`cached_scenes`)."""
    return {e["seed"] for e in scenes}


@dataclass(frozen=True)
class Step:
    """What `main` does for one scene number (`plan`): render the scene `image` (and the
    empty table `empty`, unless None), or, with `again`, make a cached scene again from its
    seed only to render its empty table, kept if `same_scene` holds."""

    seed: int
    image: str
    empty: str | None
    again: bool


def plan(split: str, i: int, cached: dict[int, dict], emptied: set[int], empty: bool,
         empty_kind: str | None = None) -> Step | None:
    """Scene number `i` of `split`, given the cache's scenes by seed (`cached`) and the seeds
    whose empty table is made (`emptied`); None when there is nothing to do. A new scene's
    kind is drawn as it is made, so `empty_kind` limits only cached scenes."""
    seed = SPLIT_SEED[split] + i
    image, photo = f"images/{split}_{i:06d}.jpg", f"images/{split}_{i:06d}_empty.jpg"
    wanted = empty and seed not in emptied
    if seed not in cached:
        return Step(seed, image, photo if wanted else None, again=False)
    if wanted and empty_kind in (None, cached[seed]["kind"]):
        return Step(seed, image, photo, again=True)
    return None


def same_scene(labels: dict, entry: dict) -> bool:
    """Whether a scene made again from its seed (`labels`, as build_and_render returns them)
    is the cached one (`entry`): its dice's boxes, each to the tenth of a pixel, and in order."""
    return [d["box"] for d in labels["dice_detail"]] == [d["box"] for d in entry["dice_detail"]]


def cache_versions(scenes: list[dict]) -> set[int]:
    """The renderer versions of a cache's scenes (1: made before versions were written)."""
    return {e.get("renderer", 1) for e in scenes}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="the cache folder (outside the repository)")
    ap.add_argument("--split", choices=sorted(SPLIT_SEED), default="train")
    ap.add_argument("--count", type=int, default=100, help="scenes in the split (made where missing)")
    ap.add_argument("--start", type=int, default=0, help="first scene number")
    ap.add_argument("--step", type=int, default=1, help="make every STEP-th scene (several processes share a split)")
    ap.add_argument("--side", type=int, default=384,
                    help=f"picture width in pixels (more where a die would be under {MIN_DIE_PX} px)")
    ap.add_argument("--samples", type=int, default=16, help="Cycles samples a pixel (denoised)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--empty", action="store_true",
                    help="render each scene's empty table too (OUT/empty.jsonl names them): for scenes already "
                         "cached, the scene is made again from its seed and its dice's boxes checked")
    ap.add_argument("--empty-kind", choices=["pip", "chance", "symbol"],
                    help="with --empty, only cached scenes of this kind")
    args = ap.parse_args(argv)
    if args.empty_kind and not args.empty:
        ap.error("--empty-kind needs --empty")
    manifest = args.out / "manifest.jsonl"
    scenes = cached_scenes(manifest)
    other = cache_versions(scenes) - {RENDERER}
    if other:  # one cache, one look: a scene made again by another version would not be the same scene
        print(f"{args.out} holds scenes of renderer version {', '.join(map(str, sorted(other)))}; this is "
              f"version {RENDERER}: render into a new folder", file=sys.stderr)
        return 2
    import bpy

    images = args.out / "images"
    images.mkdir(parents=True, exist_ok=True)
    for lines in (manifest, args.out / EMPTY):
        if lines.exists() and lines.stat().st_size and not lines.read_bytes().endswith(b"\n"):
            with lines.open("a") as f:  # a line cut short by a stop: the next starts on its own line
                f.write("\n")
    by_seed = {e["seed"]: e for e in scenes}
    empties = done_seeds(cached_scenes(args.out / EMPTY)) if args.empty else set()
    for i in range(args.start, args.count, args.step):
        step = plan(args.split, i, by_seed, empties, args.empty, args.empty_kind)
        if step is None:
            continue
        name, empty = step.image, step.empty
        if step.again:
            again = args.out / f"images/{args.split}_{i:06d}_again.jpg"
            try:
                labels = build_and_render(bpy, step.seed, args.split, again, args.side, args.samples, args.threads,
                                          args.out / empty)
            finally:
                again.unlink(missing_ok=True)
            if not same_scene(labels, by_seed[step.seed]):
                (args.out / empty).unlink()
                print(f"{name}: made again, its dice lie elsewhere: no empty table", file=sys.stderr)
                continue
            append_line(args.out / EMPTY, json.dumps({"seed": step.seed, "image": name, "empty": empty}))
            print(f"{empty}: the empty table", flush=True)
            continue
        t0 = time.time()
        labels = build_and_render(bpy, step.seed, args.split, args.out / name, args.side, args.samples, args.threads,
                                  args.out / empty if empty else None)
        dice = labels.pop("dice_detail")
        entry = {"image": name, "seed": step.seed, "renderer": RENDERER, "split": args.split, "kind": labels["kind"],
                 "dice": [d["value"] for d in dice], "boxes": [d["box"] + [d["value"]] for d in dice],
                 "dice_detail": dice, "scene": labels, "seconds": round(time.time() - t0, 1)}
        append_line(manifest, json.dumps(entry))
        if empty:
            append_line(args.out / EMPTY, json.dumps({"seed": step.seed, "image": name, "empty": empty}))
        print(f"{name}: {len(dice)} {labels['kind']} dice, {entry['seconds']} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
