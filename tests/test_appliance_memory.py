"""The service's request to the C allocator: big buffers are mapped apart and go back."""

from __future__ import annotations

import platform

import pytest

from companion.appliance import memory


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc only")
def test_on_glibc_the_mapping_threshold_is_held_at_a_mebibyte():
    assert memory.hand_big_buffers_back() is True


def test_without_mallopt_nothing_is_changed(monkeypatch):
    class NoMallopt:
        def __init__(self, name):
            pass

    monkeypatch.setattr(memory.ctypes, "CDLL", NoMallopt)
    assert memory.hand_big_buffers_back() is False
