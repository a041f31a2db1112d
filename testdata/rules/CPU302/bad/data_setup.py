"""Oxford-IIIT Pet classification data for the CPU fine-tune."""
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets
from torchvision.models import ResNet50_Weights


def make_loader(root, batch_size, workers):
    tf = ResNet50_Weights.DEFAULT.transforms()
    data = datasets.OxfordIIITPet(root, split="trainval", transform=tf)
    return DataLoader(data, batch_size=batch_size,
                      sampler=DistributedSampler(data),
                      num_workers=workers, persistent_workers=workers > 0)
