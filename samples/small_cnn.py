"""Tell horizontal bars from vertical ones with a small convolutional network.

The image tutorials' model in miniature: two 3x3 convolutions with batch norm, ReLU and
pooling, then a linear layer, trained with CrossEntropyLoss and Adam. The data are synthetic
12x12 grayscale images, each holding one noisy bar of random place and length, so it learns in
a few seconds on a CPU without downloading anything. A bar's orientation is invisible to any
single pixel, which is what the convolutions are for.

Run it with:  python samples/small_cnn.py
"""

import graphscope as gs
from graphscope import nn, optim

SIZE = 12
CLASSES = ("horizontal", "vertical")


def make_images(count):
    """`count` noisy SIZE x SIZE images of one bar each; label 0 is horizontal, 1 vertical."""
    labels = gs.randint(0, 2, (count,))
    rows = gs.arange(SIZE).reshape(1, SIZE, 1)
    cols = gs.arange(SIZE).reshape(1, 1, SIZE)
    line = gs.randint(0, SIZE, (count, 1, 1))  # the row (or column) the bar lies on
    start = gs.randint(0, SIZE // 2, (count, 1, 1))
    length = gs.randint(3, SIZE // 2 + 1, (count, 1, 1))
    horizontal = (rows == line).float() * (cols >= start).float() * (cols < start + length).float()
    vertical = (cols == line).float() * (rows >= start).float() * (rows < start + length).float()
    bars = gs.where(labels.reshape(count, 1, 1) == 1, vertical, horizontal)
    images = bars + 0.3 * gs.randn(count, SIZE, SIZE)
    return images.reshape(count, 1, SIZE, SIZE), labels


class BarNet(nn.Module):
    """conv-BN-ReLU-pool twice, global average pooling, then one logit per class."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(16, len(CLASSES)))

    def forward(self, x):
        return self.classifier(self.features(x))


def accuracy(model, images, labels):
    model.eval()
    with gs.no_grad():
        predicted = model(images).argmax(dim=1)
    model.train()
    return (predicted == labels).float().mean().item()


def main(steps=200, batch_size=32, verbose=True):
    gs.manual_seed(0)
    train_images, train_labels = make_images(1024)
    test_images, test_labels = make_images(256)

    model = BarNet()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=0.01)

    losses = []
    for step in range(steps):
        first = (step * batch_size) % len(train_labels)
        x = train_images[first:first + batch_size]
        y = train_labels[first:first + batch_size]
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if verbose and (step % 25 == 0 or step == steps - 1):
            print(f"step {step:4d}  loss {loss.item():.4f}")

    test_accuracy = accuracy(model, test_images, test_labels)
    if verbose:
        print(f"test accuracy: {test_accuracy:.1%}  (chance: 50.0%)")
    return {"losses": losses, "accuracy": test_accuracy}


if __name__ == "__main__":
    import sys

    main(*map(int, sys.argv[1:2]))  # an optional argument: the number of steps (the tests run few)
