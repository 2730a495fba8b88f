"""The complete training loop of PyTorch's introductory lesson, on graphscope.

Define a model (an nn.Module), a loss function and an optimizer, then repeat: forward pass,
loss, loss.backward(), optimizer.step(), optimizer.zero_grad(). The data are small synthetic
4x4 "images" of four classes (a noisy bar in a different place for each class), so the lesson's
train_loop / test_loop structure runs in seconds without downloading a dataset.

Run it with:  python samples/training_loop.py
"""

import graphscope as gs
from graphscope import nn, optim

CLASSES = 4


def make_images(count):
    """`count` noisy 4x4 images; class k has a bright bar in row k (0, 1) or column k - 2 (2, 3)."""
    labels = gs.randint(0, CLASSES, (count,))
    images = 0.7 * gs.randn(count, 4, 4)
    for k in range(CLASSES):
        bar = gs.zeros(4, 4)
        if k < 2:
            bar[k] = 1.0
        else:
            bar[:, k] = 1.0
        images = images + (labels == k).float().reshape(count, 1, 1) * bar
    return images, labels


class NeuralNetwork(nn.Module):
    """Flatten the image, then two hidden layers of ReLU units, then one logit per class."""

    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(4 * 4, 32),
            nn.ReLU(),
            nn.Linear(32, 32),
            nn.ReLU(),
            nn.Linear(32, CLASSES),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


def train_loop(images, labels, model, loss_fn, optimizer, batch_size=64):
    """One pass over the data in shuffled minibatches; returns the mean training loss."""
    model.train()
    order = gs.randperm(len(labels))
    total = 0.0
    batches = 0
    for start in range(0, len(labels), batch_size):
        index = order[start:start + batch_size]
        x, y = images[index], labels[index]

        # Compute prediction and loss
        pred = model(x)
        loss = loss_fn(pred, y)

        # Backpropagation
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()  # grads accumulate: clear them before the next batch

        total += loss.item()
        batches += 1
    return total / batches


def test_loop(images, labels, model, loss_fn):
    """Loss and accuracy on held-out data, without building a graph."""
    model.eval()
    with gs.no_grad():
        pred = model(images)
        loss = loss_fn(pred, labels).item()
        correct = (pred.argmax(1) == labels).float().mean().item()
    return loss, correct


def main(epochs=10, verbose=True):
    gs.manual_seed(0)
    train_images, train_labels = make_images(1024)
    test_images, test_labels = make_images(256)

    model = NeuralNetwork()
    if verbose:
        print(model)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.1)

    history = []
    for epoch in range(epochs):
        train_loss = train_loop(train_images, train_labels, model, loss_fn, optimizer)
        test_loss, accuracy = test_loop(test_images, test_labels, model, loss_fn)
        history.append({"train_loss": train_loss, "test_loss": test_loss, "accuracy": accuracy})
        if verbose:
            print(f"epoch {epoch + 1:2d}  train loss {train_loss:.4f}  test loss {test_loss:.4f}  "
                  f"test accuracy {accuracy:.1%}")
    if verbose:
        print("Done!")
    return history


if __name__ == "__main__":
    import sys

    main(*map(int, sys.argv[1:2]))  # an optional argument: the number of epochs (the tests run few)
