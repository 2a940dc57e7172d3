"""The face model's training script: a trained net widened computes what it did, a run's
checkpoint brings back the weights, the optimiser and where the learning-rate cycle stood,
and crops are smeared (--motion) only when asked. Needs torch (the training extra), so it
is skipped where only the companion is installed."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts" / "vision"))
import parallel  # noqa: E402
import train_faces  # noqa: E402


def _trained(width: float) -> "train_faces.FaceNet":
    """A folded net with weights of a trained net's scale (not an init's symmetric ones)."""
    torch.manual_seed(3)
    net = train_faces.FaceNet(width, folded=True)
    with torch.no_grad():
        for p in net.parameters():
            p.normal_(0, 0.15)
    return net.eval()


def _convs(net) -> list[int]:
    return [m.out_channels for m in net.body.modules() if isinstance(m, torch.nn.Conv2d)]


@pytest.mark.parametrize("width, times, widths", [(0.5, 2, [16, 16, 32, 32, 48, 48]),
                                                  (0.5, 1.5, [12, 12, 24, 24, 36, 36]),
                                                  (1.0, 1.25, [20, 20, 40, 40, 60, 60])])
def test_a_widened_net_computes_what_it_did(width, times, widths):
    net = _trained(width)
    wide = train_faces.widened(net, times).eval()
    assert _convs(wide) == widths
    x = torch.randn(32, 3, train_faces.FACE_SIDE, train_faces.FACE_SIDE)
    with torch.no_grad():
        before, after = net(x), wide(x)
    # the 1% jitter that lets the copies learn apart moves the logits a little, no more
    assert torch.allclose(before, after, atol=0.05 * float(before.abs().max()))
    assert not torch.equal(before, after)


def test_widening_by_a_fraction_keeps_every_channel_once_before_any_twice():
    net = _trained(1.0)  # 16, 32, 48
    wide = train_faces.widened(net, 1.5)
    first_old = next(m for m in net.body.modules() if isinstance(m, torch.nn.Conv2d)).bias.detach()
    first_new = next(m for m in wide.body.modules() if isinstance(m, torch.nn.Conv2d)).bias.detach()
    # the first layer's biases are copied as they are: the old ones in order, then 8 copies
    assert torch.equal(first_new[:16], first_old)
    extra = first_new[16:]
    assert len({float(b) for b in extra}) == 8 and all(any(float(b) == float(o) for o in first_old) for b in extra)


def test_a_checkpoint_brings_back_the_run(tmp_path):
    net = train_faces.FaceNet(0.5)
    opt = torch.optim.AdamW(net.parameters(), 1e-3)
    cycle = parallel.schedule(opt, 1e-3, 10.0, 100)  # ten minutes of wall time
    net(torch.randn(4, 3, train_faces.FACE_SIDE, train_faces.FACE_SIDE)).sum().backward()
    opt.step()
    cycle.step()
    cycle.start -= 60  # a minute of the cycle spent
    path = tmp_path / "run.ckpt"
    parallel.save_checkpoint(str(path), net, opt, cycle, epoch=7)
    assert not (tmp_path / "run.ckpt.tmp").exists()

    again = train_faces.FaceNet(0.5)
    opt2 = torch.optim.AdamW(again.parameters(), 1e-3)
    cycle2 = parallel.schedule(opt2, 1e-3, 10.0, 100)
    assert parallel.resumed(str(path), again, opt2, cycle2) == 8  # the epoch after the one saved
    assert all(torch.equal(a, b) for a, b in zip(net.state_dict().values(), again.state_dict().values()))
    assert opt2.state_dict()["state"].keys() == opt.state_dict()["state"].keys()
    assert 0.09 < cycle2.fraction() < 0.12  # a minute of ten spent, not started afresh
    assert cycle2.steps == 1


def test_no_checkpoint_is_a_new_run(tmp_path):
    net = train_faces.FaceNet(0.5)
    opt = torch.optim.AdamW(net.parameters(), 1e-3)
    cycle = parallel.schedule(opt, 1e-3, 10.0, 100)
    started = cycle.start
    assert parallel.resumed(str(tmp_path / "none.ckpt"), net, opt, cycle) == 0
    assert cycle.start == started <= time.time()


def test_crops_are_smeared_only_when_asked_and_keep_their_light(monkeypatch):
    crop = np.zeros((48, 48, 3), np.float32)
    crop[24, 24] = 255.0  # one bright dot
    monkeypatch.setattr(train_faces, "MOTION", 0.0)
    rng = random.Random(1)
    assert train_faces.smeared(crop, rng) is crop
    assert rng.random() == random.Random(1).random()  # no draw: runs without --motion draw as before
    monkeypatch.setattr(train_faces, "MOTION", 1.0)
    smear = train_faces.smeared(crop, random.Random(2))
    lit = np.argwhere(smear[..., 0] > 1.0)
    assert len(lit) >= 3  # the dot drawn out into a streak
    assert abs(float(smear[..., 0].sum()) - 255.0) < 1.0  # as much light as before
    spread = lit.max(0) - lit.min(0)
    assert spread.max() <= 10  # at most 10 crop pixels long


def test_the_teachers_loss_leaves_out_the_scenes_it_is_told_to():
    import train_detector
    torch.manual_seed(5)
    teacher = train_detector.CentreNet().eval()
    x = torch.randn(2, 3, 64, 64)
    heat = torch.zeros(2, 16, 16)
    heat[:, 8, 8] = 1.0
    with torch.no_grad():
        t = teacher(x)
    out = t.clone()
    out[1] = t[1] + 3.0  # the second scene's output far from the teacher's, the first's the same
    both = float(train_detector.taught(out, [teacher], x, heat))
    assert both > 0.5
    assert float(train_detector.taught(out, [teacher], x, heat, torch.tensor([1.0, 1.0]))) == pytest.approx(both, rel=1e-5)
    # the first scene alone: the output is the teacher's, so nothing is left but rounding
    assert abs(float(train_detector.taught(out, [teacher], x, heat, torch.tensor([1.0, 0.0])))) < 1e-3
    assert float(train_detector.taught(out, [teacher], x, heat, torch.tensor([0.0, 1.0]))) == pytest.approx(both, rel=1e-4)
    read = []  # the teachers read only the scenes taught

    def counting(v):
        read.append(v.shape[0])
        return teacher(v)
    assert float(train_detector.taught(out, [counting], x, heat, torch.tensor([0.0, 1.0]))) == pytest.approx(both, rel=1e-4)
    assert float(train_detector.taught(out, [counting], x, heat, torch.tensor([0.0, 0.0]))) == 0.0
    assert read == [1]


def test_a_face_model_for_pip_tables_is_taught_from_pictures_of_pip_dice_alone():
    import dataset
    images = Path(__file__).parent / "fixtures" / "rendered" / "images"

    def picture(name, kind):
        return dataset.Labelled("rendered", images / name, kind, ((10.0, 10.0, 40.0, 40.0, 3),), False)
    pictures = [picture("pip_0030.jpg", "pip"), picture("chance_0001.jpg", "chance"),
                picture("spikeA_0027.jpg", "spike-A"), picture("spikeA_0031.jpg", "symbol")]
    every = train_faces.load_items(False, pictures)
    assert [d[0][3] for _, d, _, _ in every] == [3, 7, 7, 7]
    pips = train_faces.load_items(False, pictures, pips_only=True)
    assert [d[0][3] for _, d, _, _ in pips] == [3]
