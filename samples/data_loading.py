"""Mini-batches from a DataLoader: regression on a held-out split, as in PyTorch's data tutorial.

The data: 512 points of y = sin(2x) + noise. `TensorDataset` pairs inputs with targets,
`random_split` keeps 20% aside, and a `DataLoader` serves shuffled batches of 32 each epoch
(seeded with a `Generator`, so every run sees the same batches). A small MLP learns the curve;
the held-out loss shows it generalises.

Run it with:  python samples/data_loading.py     (or debug it: graphscope run samples/data_loading.py)
"""

import graphscope as gs
from graphscope import nn, optim
from graphscope.utils.data import DataLoader, TensorDataset, random_split


def main(epochs=30, verbose=True):
    gs.manual_seed(0)
    x = gs.rand(512, 1) * 4 - 2
    y = (2 * x).sin() + 0.05 * gs.randn(512, 1)
    train, held_out = random_split(TensorDataset(x, y), [0.8, 0.2], generator=gs.Generator().manual_seed(0))
    batches = DataLoader(train, batch_size=32, shuffle=True, generator=gs.Generator().manual_seed(1))

    model = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.MSELoss()
    held_x, held_y = next(iter(DataLoader(held_out, batch_size=len(held_out))))

    history = []
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for inputs, targets in batches:
            loss = loss_fn(model(inputs), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(inputs)
        model.eval()
        with gs.no_grad():
            held = loss_fn(model(held_x), held_y).item()
        history.append({"train_loss": total / len(train), "held_out_loss": held})
        if verbose:
            print(f"epoch {epoch:2d}  train {total / len(train):.4f}  held-out {held:.4f}")
    return history


if __name__ == "__main__":
    import sys

    main(*map(int, sys.argv[1:2]))  # an optional argument: the number of epochs (the tests run few)
