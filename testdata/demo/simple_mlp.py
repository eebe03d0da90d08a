"""SimpleMLP, the model the demo cache was compiled from (torch-spyre's examples compile it the
same way). The compile ran it as /workspace/simple_mlp.py: its handles name that path, and
`--source-map /workspace=DIR` reads this copy instead."""
import torch
import torch.nn as nn


class SimpleMLP(nn.Module):
    """Two linear layers with a ReLU between them."""

    def __init__(self, in_features=1024, hidden=1024, out_features=1024):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.fc2 = nn.Linear(hidden, out_features)

    def forward(self, x):
        # One kernel for fc1 and the ReLU, one for fc2's bias.
        x = self.fc1(x)
        x = torch.relu(x)
        x = self.fc2(x)
        return x


if __name__ == "__main__":
    model = SimpleMLP().to("spyre")
    compiled = torch.compile(model)
    print(compiled(torch.randn(512, 1024, device="spyre")).shape)
