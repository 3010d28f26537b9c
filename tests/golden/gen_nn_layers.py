#!/usr/bin/python3
"""Writes tests/golden/nn_layers.json: PyTorch 1.13's layer modules with the weights drawn here
(exported in the case's state_dict), their forward output, gradients of sum(out * grad_out)
with respect to the input and every parameter, the buffers after the call (BatchNorm's running
stats) and each layer's repr. Read by tests/nn/layers_test.cpp. Run with /usr/bin/python3.
"""
import json
import os

import torch
import torch.nn as nn

from golden_json import enc_tensor

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(0)


def case(name, layer, x, train=True, calls=1, x2=None):
    # Perturb floating state so that ones/zeros defaults do not hide mistakes.
    with torch.no_grad():
        for p in layer.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    before = {k: enc_tensor(v) for k, v in layer.state_dict().items()}
    layer.train(train)
    for _ in range(calls - 1):
        layer(x)
    if x.is_floating_point():
        x = x.clone().requires_grad_()
    if x2 is not None:  # two-input layers (Bilinear)
        x2 = x2.clone().requires_grad_()
    out = layer(x) if x2 is None else layer(x, x2)
    g = torch.randn_like(out)
    (out * g).sum().backward()
    grads = {n: enc_tensor(p.grad) for n, p in layer.named_parameters()}
    if x.requires_grad:
        grads["input"] = enc_tensor(x.grad)
    extra = {}
    if x2 is not None:
        grads["input2"] = enc_tensor(x2.grad)
        extra["input2"] = enc_tensor(x2)
    return {"name": name, "train": train, "calls": calls, "state_dict": before, "input": enc_tensor(x),
            "out": enc_tensor(out), "grad_out": enc_tensor(g), "grads": grads,
            "buffers_after": {n: enc_tensor(b) for n, b in layer.named_buffers()}, "repr": repr(layer),
            **extra}


def main():
    cases = [
        case("linear", nn.Linear(4, 3), torch.randn(5, 4)),
        case("linear_nobias", nn.Linear(4, 3, bias=False), torch.randn(2, 3, 4)),
        case("layer_norm", nn.LayerNorm(6), torch.randn(3, 6)),
        case("group_norm", nn.GroupNorm(2, 4), torch.randn(2, 4, 3)),
        case("batch_norm1d_train", nn.BatchNorm1d(3), torch.randn(6, 3), calls=2),
        case("batch_norm1d_cumulative", nn.BatchNorm1d(3, momentum=None), torch.randn(4, 3, 2), calls=3),
        case("batch_norm2d_eval", nn.BatchNorm2d(2), torch.randn(2, 2, 3, 3), train=False),
        case("batch_norm2d_no_stats", nn.BatchNorm2d(2, affine=False, track_running_stats=False),
             torch.randn(2, 2, 2, 2)),
        case("embedding_padding", nn.Embedding(6, 3, padding_idx=1), torch.tensor([[0, 1, 5], [1, 2, 0]])),
        case("gelu_tanh", nn.GELU(approximate="tanh"), torch.randn(7)),
        case("leaky_relu", nn.LeakyReLU(0.2), torch.randn(7)),
        case("elu", nn.ELU(0.5), torch.randn(7)),
        case("softplus", nn.Softplus(beta=2.0, threshold=1.0), torch.randn(7)),
        case("softmax", nn.Softmax(dim=1), torch.randn(2, 5)),
        case("log_softmax", nn.LogSoftmax(dim=0), torch.randn(3, 2)),
        case("sequential", nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2), nn.Tanh()),
             torch.randn(3, 4)),
        case("flatten", nn.Flatten(), torch.randn(2, 3, 2)),
        case("dropout_eval", nn.Dropout(0.3), torch.randn(4), train=False),
        # convolution, pooling, resampling, bilinear
        case("conv1d", nn.Conv1d(2, 4, 3, stride=2, padding=1), torch.randn(2, 2, 7)),
        case("conv1d_same_reflect", nn.Conv1d(2, 4, 4, padding="same", dilation=2, groups=2, bias=False,
                                              padding_mode="reflect"), torch.randn(1, 2, 9)),
        case("conv1d_unbatched", nn.Conv1d(3, 2, 2), torch.randn(3, 5)),
        case("conv2d", nn.Conv2d(3, 4, 3, padding=1), torch.randn(2, 3, 5, 5)),
        case("conv2d_strided_groups", nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 2),
                                                groups=2), torch.randn(1, 4, 6, 7)),
        case("conv2d_valid", nn.Conv2d(2, 3, 3, padding="valid"), torch.randn(1, 2, 4, 5)),
        case("conv2d_same_even", nn.Conv2d(2, 2, (2, 4), padding="same"), torch.randn(1, 2, 5, 6)),
        case("conv2d_circular", nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode="circular"),
             torch.randn(1, 2, 4, 5)),
        case("conv2d_replicate_same", nn.Conv2d(1, 2, 3, padding="same", padding_mode="replicate"),
             torch.randn(2, 1, 4, 4)),
        case("conv_transpose2d", nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1),
             torch.randn(1, 4, 3, 3)),
        case("conv_transpose2d_groups", nn.ConvTranspose2d(4, 6, (2, 3), stride=(1, 2), groups=2,
                                                           dilation=(2, 1), bias=False), torch.randn(2, 4, 3, 2)),
        case("max_pool1d", nn.MaxPool1d(3, stride=2, padding=1), torch.randn(2, 3, 8)),
        case("max_pool2d", nn.MaxPool2d(2), torch.randn(1, 2, 4, 6)),
        case("max_pool2d_ceil", nn.MaxPool2d((3, 2), stride=(2, 1), padding=1, dilation=(1, 2), ceil_mode=True),
             torch.randn(1, 2, 6, 7)),
        case("avg_pool2d", nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), torch.randn(1, 2, 5, 5)),
        case("avg_pool2d_divisor", nn.AvgPool2d((2, 3), divisor_override=4, ceil_mode=True), torch.randn(2, 1, 5, 7)),
        case("adaptive_avg_pool2d", nn.AdaptiveAvgPool2d((2, 3)), torch.randn(1, 2, 5, 7)),
        case("adaptive_avg_pool2d_1", nn.AdaptiveAvgPool2d(1), torch.randn(2, 3, 3, 4)),
        case("upsample_nearest", nn.Upsample(scale_factor=2), torch.randn(1, 1, 2, 3)),
        case("upsample_bilinear_align", nn.Upsample(size=(4, 5), mode="bilinear", align_corners=True),
             torch.randn(1, 2, 3, 3)),
        case("upsample_bilinear", nn.Upsample(scale_factor=1.5, mode="bilinear", align_corners=False),
             torch.randn(1, 1, 3, 4)),
        case("upsample_linear", nn.Upsample(scale_factor=2, mode="linear", align_corners=False), torch.randn(1, 2, 3)),
        case("bilinear", nn.Bilinear(3, 2, 4), torch.randn(5, 3), x2=torch.randn(5, 2)),
        case("bilinear_batched_nobias", nn.Bilinear(3, 2, 2, bias=False), torch.randn(2, 3, 3),
             x2=torch.randn(2, 3, 2)),
        case("instance_norm2d_affine_stats", nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
             torch.randn(2, 3, 4, 4), calls=2),
        case("instance_norm1d", nn.InstanceNorm1d(2), torch.randn(3, 2, 5)),
        case("instance_norm3d_eval", nn.InstanceNorm3d(2, affine=True, track_running_stats=True),
             torch.randn(2, 2, 2, 3, 3), train=False),
        case("instance_norm1d_unbatched", nn.InstanceNorm1d(2, momentum=0.5, track_running_stats=True),
             torch.randn(2, 6)),
        case("prelu_channels", nn.PReLU(3, init=0.1), torch.randn(2, 3, 4)),
        case("prelu", nn.PReLU(), torch.randn(6)),
        case("conv3d", nn.Conv3d(2, 3, 3, padding=1), torch.randn(2, 2, 4, 5, 3)),
        case("conv3d_strided_groups",
             nn.Conv3d(4, 6, (3, 2, 2), stride=(2, 1, 2), dilation=(1, 2, 1), groups=2),
             torch.randn(1, 4, 7, 6, 5)),
        case("conv3d_same_reflect", nn.Conv3d(2, 2, (2, 3, 4), padding="same", padding_mode="reflect",
                                              bias=False), torch.randn(1, 2, 4, 5, 6)),
    ]
    reprs = {
        "rms_norm": None,
        "mish_silu_hardswish": repr(nn.Sequential(nn.Mish(), nn.SiLU(), nn.Hardswish(), nn.ReLU6(), nn.Sigmoid())),
        "dropouts": repr(nn.Sequential(nn.Dropout(0.1), nn.Dropout2d(0.25, inplace=True))),
        "embedding_options": repr(nn.Embedding(10, 3, padding_idx=-1, max_norm=1.0)),
        "unflatten": repr(nn.Unflatten(1, (2, 3))),
        "identity": repr(nn.Identity()),
        "module_list": repr(nn.ModuleList([nn.Linear(2, 2), nn.LayerNorm([2, 3], eps=1e-6)])),
        "bn_momentum_none": repr(nn.BatchNorm1d(5, momentum=None, affine=False)),
        "conv2d_api": repr(nn.Conv2d(1, 32, 3, stride=1, padding=1)),
        "conv1d_options": repr(nn.Conv1d(2, 4, 3, padding="same", dilation=2, groups=2, bias=False,
                                         padding_mode="reflect")),
        "conv_transpose2d_options": repr(nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1, groups=2,
                                                            dilation=(1, 2), bias=False)),
        "pools": repr(nn.Sequential(nn.MaxPool2d(2), nn.MaxPool1d(3, stride=2, padding=1, ceil_mode=True),
                                    nn.MaxPool2d((2, 3), stride=(1, 2), dilation=2), nn.AvgPool2d(2),
                                    nn.AvgPool2d((3, 2), stride=1, padding=(1, 0)), nn.AdaptiveAvgPool2d((1, 1)),
                                    nn.AdaptiveAvgPool2d(4))),
        "upsamples": repr(nn.Sequential(nn.Upsample(scale_factor=2), nn.Upsample(size=(4, 5), mode="bilinear"),
                                        nn.Upsample(size=7, mode="linear"),
                                        nn.Upsample(scale_factor=(2, 1.5), mode="nearest"))),
        "bilinear": repr(nn.Bilinear(2, 3, 4, bias=False)),
    }
    del reprs["rms_norm"]  # RMSNorm arrived in PyTorch 2.4
    with open(os.path.join(HERE, "nn_layers.json"), "w") as f:
        json.dump({"cases": cases, "reprs": reprs}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
