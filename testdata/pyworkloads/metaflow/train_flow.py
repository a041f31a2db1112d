"""Metaflow: prepare on the default compute, train on a Kubernetes GPU.

Shaped like Netflix/metaflow's tutorials: a FlowSpec whose steps chain
with self.next(), @kubernetes on the step that needs a GPU.
"""
from metaflow import FlowSpec, Parameter, kubernetes, resources, step


class TrainFlow(FlowSpec):
    epochs = Parameter("epochs", default=2)

    @step
    def start(self):
        self.data_dir = "/data/imagenet-subset"
        self.next(self.train)

    @kubernetes(cpu=4, memory=32000, gpu=1)
    @step
    def train(self):
        import torch
        from torch.utils.data import DataLoader
        from torchvision import datasets, models, transforms

        data = datasets.ImageFolder(self.data_dir,
                                    transform=transforms.ToTensor())
        loader = DataLoader(data, batch_size=128, num_workers=16)
        model = models.resnet18().cuda()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(self.epochs):
            for x, y in loader:
                loss = torch.nn.functional.cross_entropy(model(x.cuda()),
                                                         y.cuda())
                loss.backward()
                opt.step()
        self.next(self.report)

    @resources(cpu=1, memory=2000)
    @step
    def report(self):
        print("done")
        self.next(self.end)

    @step
    def end(self):
        pass


if __name__ == "__main__":
    TrainFlow()
