"""The same flow sized right: 8 CPUs, 2 intra-op threads (@environment),
6 loader workers, and shared_memory for their batches.
"""
from metaflow import FlowSpec, environment, kubernetes, step


class TrainFlow(FlowSpec):

    @step
    def start(self):
        self.next(self.train)

    @environment(vars={"OMP_NUM_THREADS": "2"})
    @kubernetes(cpu=8, memory=32000, gpu=1, shared_memory=4096,
                qos="Guaranteed")
    @step
    def train(self):
        import torch
        from torch.utils.data import DataLoader
        from torchvision import datasets, models, transforms

        data = datasets.ImageFolder("/data",
                                    transform=transforms.ToTensor())
        loader = DataLoader(data, batch_size=128, num_workers=6)
        model = models.resnet18().cuda()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()),
                                                     y.cuda())
            loss.backward()
            opt.step()
        self.next(self.end)

    @step
    def end(self):
        pass


if __name__ == "__main__":
    TrainFlow()
