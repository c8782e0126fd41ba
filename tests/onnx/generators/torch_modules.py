"""Architectures the corpus needs that no installed library ships as a
model, written here in plain PyTorch after their published designs:

- ``UNet``: Ronneberger et al.'s encoder-decoder (ConvTranspose2d up
  steps, skip connections padded to the skip's size when an odd input size
  leaves the up-sampled map one pixel short, as the widely used
  ``milesial/Pytorch-UNet`` does) over a free height and width;
- ``YoloLike``: a YOLOv8-style detector (Conv-BN-SiLU, C2f blocks that
  split and concatenate, SPPF max pools, nearest up-sampling, a decoupled
  head decoded against an anchor grid built from the free input size).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class DoubleConv(nn.Sequential):  # type: ignore[misc, unused-ignore]  # Module is Any without torch (the test extra)
    def __init__(self, cin: int, cout: int) -> None:
        super().__init__(
            nn.Conv2d(cin, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        )


class Up(nn.Module):  # type: ignore[misc, unused-ignore]  # Module is Any without torch (the test extra)
    def __init__(self, cin: int, cout: int) -> None:
        super().__init__()
        self.up = nn.ConvTranspose2d(cin, cin // 2, 2, stride=2)
        self.conv = DoubleConv(cin, cout)

    def forward(self, x: torch.Tensor, skip: torch.Tensor) -> torch.Tensor:
        x = self.up(x)
        dy = skip.size(2) - x.size(2)
        dx = skip.size(3) - x.size(3)
        x = F.pad(x, [dx // 2, dx - dx // 2, dy // 2, dy - dy // 2])
        out: torch.Tensor = self.conv(torch.cat([skip, x], dim=1))
        return out


class UNet(nn.Module):  # type: ignore[misc, unused-ignore]  # Module is Any without torch (the test extra)
    def __init__(self, channels: int = 3, classes: int = 2, width: int = 16) -> None:
        super().__init__()
        w = width
        self.inc = DoubleConv(channels, w)
        self.downs = nn.ModuleList(DoubleConv(w * 2**i, w * 2 ** (i + 1)) for i in range(4))
        self.ups = nn.ModuleList(Up(w * 2 ** (i + 1), w * 2**i) for i in reversed(range(4)))
        self.outc = nn.Conv2d(w, classes, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        skips = [self.inc(x)]
        for down in self.downs:
            skips.append(down(F.max_pool2d(skips[-1], 2)))
        x = skips.pop()
        for up in self.ups:
            x = up(x, skips.pop())
        out: torch.Tensor = self.outc(x)
        return out


class ConvBnSilu(nn.Sequential):  # type: ignore[misc, unused-ignore]  # Module is Any without torch (the test extra)
    def __init__(self, cin: int, cout: int, k: int = 3, s: int = 1) -> None:
        super().__init__(nn.Conv2d(cin, cout, k, s, k // 2, bias=False), nn.BatchNorm2d(cout), nn.SiLU())


class C2f(nn.Module):  # type: ignore[misc, unused-ignore]  # Module is Any without torch (the test extra)
    def __init__(self, cin: int, cout: int, n: int = 1) -> None:
        super().__init__()
        self.hidden = cout // 2
        self.cv1 = ConvBnSilu(cin, 2 * self.hidden, 1)
        self.blocks = nn.ModuleList(
            nn.Sequential(ConvBnSilu(self.hidden, self.hidden), ConvBnSilu(self.hidden, self.hidden))
            for _ in range(n)
        )
        self.cv2 = ConvBnSilu((2 + n) * self.hidden, cout, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        parts = list(self.cv1(x).split((self.hidden, self.hidden), 1))
        for block in self.blocks:
            parts.append(parts[-1] + block(parts[-1]))
        out: torch.Tensor = self.cv2(torch.cat(parts, 1))
        return out


class Sppf(nn.Module):  # type: ignore[misc, unused-ignore]  # Module is Any without torch (the test extra)
    def __init__(self, cin: int, cout: int) -> None:
        super().__init__()
        self.cv1 = ConvBnSilu(cin, cin // 2, 1)
        self.cv2 = ConvBnSilu(cin * 2, cout, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = [self.cv1(x)]
        for _ in range(3):
            y.append(F.max_pool2d(y[-1], 5, 1, 2))
        out: torch.Tensor = self.cv2(torch.cat(y, 1))
        return out


class YoloLike(nn.Module):  # type: ignore[misc, unused-ignore]  # Module is Any without torch (the test extra)
    """Returns ``[batch, 4 + classes, anchors]``: boxes (xywh in pixels)
    and class scores for every anchor of the three levels."""

    def __init__(self, classes: int = 8, width: int = 16) -> None:
        super().__init__()
        w = width
        self.classes = classes
        self.stem = nn.Sequential(ConvBnSilu(3, w, 3, 2), ConvBnSilu(w, 2 * w, 3, 2), C2f(2 * w, 2 * w))
        self.p3 = nn.Sequential(ConvBnSilu(2 * w, 4 * w, 3, 2), C2f(4 * w, 4 * w, 2))
        self.p4 = nn.Sequential(ConvBnSilu(4 * w, 8 * w, 3, 2), C2f(8 * w, 8 * w, 2))
        self.p5 = nn.Sequential(ConvBnSilu(8 * w, 8 * w, 3, 2), C2f(8 * w, 8 * w), Sppf(8 * w, 8 * w))
        self.top4 = C2f(16 * w, 8 * w)
        self.top3 = C2f(12 * w, 4 * w)
        self.box = nn.ModuleList(
            nn.Sequential(ConvBnSilu(c, w), nn.Conv2d(w, 4, 1)) for c in (4 * w, 8 * w, 8 * w)
        )
        self.cls = nn.ModuleList(
            nn.Sequential(ConvBnSilu(c, w), nn.Conv2d(w, classes, 1)) for c in (4 * w, 8 * w, 8 * w)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        p3 = self.p3(self.stem(x))
        p4 = self.p4(p3)
        p5 = self.p5(p4)
        n4 = self.top4(torch.cat([F.interpolate(p5, scale_factor=2.0, mode="nearest"), p4], 1))
        n3 = self.top3(torch.cat([F.interpolate(n4, scale_factor=2.0, mode="nearest"), p3], 1))
        outs = []
        for level, (feature, stride) in enumerate(((n3, 8), (n4, 16), (p5, 32))):
            h, w = feature.shape[2], feature.shape[3]
            ys = torch.arange(h, dtype=torch.float32) + 0.5
            xs = torch.arange(w, dtype=torch.float32) + 0.5
            gy, gx = torch.meshgrid(ys, xs, indexing="ij")
            grid = torch.stack([gx, gy], 0).reshape(1, 2, -1)
            box = self.box[level](feature).flatten(2)
            centre = (grid + box[:, :2].tanh()) * stride
            size = box[:, 2:].exp() * stride
            scores = self.cls[level](feature).flatten(2).sigmoid()
            outs.append(torch.cat([centre, size, scores], 1))
        return torch.cat(outs, 2)
