#!/usr/bin/env python3
"""Writes include/ember/libtorch/torch/detail/ember_names.h: the using-declarations that give
LibTorch's namespaces (torch, torch::nn, ...) ember's public names (at:: takes torch's through
one using-directive in torch/types.h).

Why declarations, not `using namespace ember;` inside namespace torch: a program that says
`using namespace torch;` would then see, through the transitive directive, both torch's own
names and ember's same-named ones (TensorOptions, nn::Conv2d, ...) and every such use would be
ambiguous. Declarations bring each name once, and the names the layer defines itself (OWN below)
are left out.

The names come from clang's AST of ember/ember.h (everything declared at namespace scope in
ember's public namespaces, detail namespaces excepted):
    scripts/gen_libtorch_names.py           rewrite the header
    scripts/gen_libtorch_names.py --check   exit 1 when the committed header is out of date
"""
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "include/ember/libtorch/torch/detail/ember_names.h"

# ember namespace -> the LibTorch namespaces that get its names.
TARGETS = {
    "ember": ["torch"],
    "ember::autograd": ["torch::autograd"],
    "ember::nn": ["torch::nn"],
    "ember::nn::functional": ["torch::nn::functional"],
    "ember::nn::init": ["torch::nn::init"],
    "ember::nn::utils": ["torch::nn::utils"],
    "ember::optim": ["torch::optim"],
    "ember::cuda": ["torch::cuda"],
    "ember::indexing": ["torch::indexing"],
}

# Names the layer defines itself with LibTorch's meaning, per LibTorch namespace (a using-
# declaration of ember's would collide with them). Keep each set sorted.
OWN = {
    "torch": {
        # LibTorch's builder, not ember's struct
        "TensorOptions",
        # ATen's positional signatures (weight, reduction, ...), not ember's options structs
        "avg_pool2d", "binary_cross_entropy", "max_pool2d", "mse_loss", "nll_loss",
        # LibTorch's torch::save(value, args...) / torch::load(value&, args...)
        "load", "save",
    },
    "torch::autograd": {"AutogradContext", "Function"},
    # The layers (handles, Impls over ember's, option builders), the containers and the handle
    # template: torch/nn/modules/*.h, torch/nn/options/*.h, torch/nn/pimpl.h
    "torch::nn": {
        "AdaptiveAvgPool2d", "AdaptiveAvgPool2dImpl", "AvgPool2d", "AvgPool2dImpl",
        "AvgPoolOptions", "BCELoss", "BCELossImpl", "BCELossOptions", "BCEWithLogitsLoss",
        "BCEWithLogitsLossImpl", "BCEWithLogitsLossOptions", "BatchNorm1d", "BatchNorm1dImpl",
        "BatchNorm2d", "BatchNorm2dImpl", "BatchNormOptions", "Bilinear", "BilinearImpl",
        "BilinearOptions", "Conv1d", "Conv1dImpl", "Conv2d", "Conv2dImpl", "Conv3d", "Conv3dImpl",
        "ConvOptions",
        "ConvTranspose2d", "ConvTranspose2dImpl", "ConvTransposeOptions", "CosineEmbeddingLoss",
        "CosineEmbeddingLossImpl", "CosineEmbeddingLossOptions", "CrossEntropyLoss",
        "CrossEntropyLossImpl", "CrossEntropyLossOptions", "Dropout", "Dropout2d", "Dropout2dImpl",
        "DropoutImpl", "DropoutOptions", "ELU", "ELUImpl", "ELUOptions", "Embedding",
        "EmbeddingImpl", "EmbeddingOptions", "Flatten", "FlattenImpl", "FlattenOptions", "GELU",
        "GELUImpl", "GELUOptions", "GRU", "GRUCell", "GRUCellImpl", "GRUCellOptions", "GRUImpl",
        "GRUOptions", "GroupNorm", "GroupNormImpl", "GroupNormOptions", "HuberLoss",
        "HuberLossImpl", "HuberLossOptions", "Identity", "IdentityImpl", "InstanceNorm1d",
        "InstanceNorm1dImpl", "InstanceNorm2d", "InstanceNorm2dImpl", "InstanceNorm3d",
        "InstanceNorm3dImpl", "InstanceNormOptions", "KLDivLoss",
        "KLDivLossImpl", "KLDivLossOptions", "L1Loss", "L1LossImpl", "L1LossOptions", "LSTM",
        "LSTMCell", "LSTMCellImpl", "LSTMCellOptions", "LSTMImpl", "LSTMOptions", "LayerNorm",
        "LayerNormImpl", "LayerNormOptions", "LeakyReLU", "LeakyReLUImpl", "LeakyReLUOptions",
        "Linear", "LinearImpl", "LinearOptions", "LogSoftmax", "LogSoftmaxImpl", "MSELoss",
        "MSELossImpl", "MSELossOptions", "MarginRankingLoss", "MarginRankingLossImpl",
        "MarginRankingLossOptions", "MaxPool1d", "MaxPool1dImpl", "MaxPool2d", "MaxPool2dImpl",
        "MaxPoolOptions", "Mish", "MishImpl", "ModuleDict", "ModuleDictImpl", "ModuleHolder",
        "ModuleList", "ModuleListImpl", "MultiheadAttention", "MultiheadAttentionImpl",
        "MultiheadAttentionOptions", "NLLLoss", "NLLLossImpl", "NLLLossOptions", "PReLU",
        "PReLUImpl", "PReLUOptions", "RNN", "RNNCell",
        "RNNCellImpl", "RNNCellOptions", "RNNImpl", "RNNOptions", "ReLU", "ReLU6", "ReLU6Impl",
        "ReLUImpl", "Sequential", "SequentialImpl", "SiLU", "SiLUImpl", "Sigmoid", "SigmoidImpl",
        "SmoothL1Loss", "SmoothL1LossImpl", "SmoothL1LossOptions", "Softmax", "SoftmaxImpl",
        "Softplus", "SoftplusImpl", "SoftplusOptions", "Tanh", "TanhImpl",
        "TransformerDecoderLayer", "TransformerDecoderLayerImpl", "TransformerDecoderLayerOptions",
        "TransformerEncoder", "TransformerEncoderImpl", "TransformerEncoderLayer",
        "TransformerEncoderLayerImpl", "TransformerEncoderLayerOptions", "TripletMarginLoss",
        "TripletMarginLossImpl", "TripletMarginLossOptions", "Unflatten", "UnflattenImpl",
        "Upsample", "UpsampleImpl", "UpsampleOptions",
    },
    # LibTorch's signatures and option builders: torch/nn/functional/*.h
    "torch::nn::functional": {
        "BatchNormFuncOptions", "BinaryCrossEntropyFuncOptions",
        "BinaryCrossEntropyWithLogitsFuncOptions", "ConvFuncOptions", "ConvTransposeFuncOptions",
        "CosineEmbeddingLossFuncOptions", "CosineSimilarityFuncOptions", "CrossEntropyFuncOptions",
        "DropoutFuncOptions", "EmbeddingFuncOptions", "GroupNormFuncOptions",
        "HuberLossFuncOptions", "InstanceNormFuncOptions", "InterpolateFuncOptions", "KLDivFuncOptions", "L1LossFuncOptions",
        "LayerNormFuncOptions", "MSELossFuncOptions", "MarginRankingLossFuncOptions",
        "NLLLossFuncOptions", "PadFuncOptions", "PairwiseDistanceFuncOptions",
        "SmoothL1LossFuncOptions", "TripletMarginLossFuncOptions", "adaptive_avg_pool1d",
        "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices",
        "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices", "avg_pool1d", "avg_pool2d",
        "batch_norm", "binary_cross_entropy", "binary_cross_entropy_with_logits", "conv1d",
        "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "cosine_embedding_loss",
        "cosine_similarity", "cross_entropy", "dropout", "dropout2d", "dropout3d", "embedding",
        "group_norm", "huber_loss", "instance_norm", "interpolate", "kl_div", "l1_loss", "layer_norm",
        "margin_ranking_loss", "max_pool1d", "max_pool1d_with_indices", "max_pool2d",
        "max_pool2d_with_indices", "mse_loss", "nll_loss", "pad", "pairwise_distance", "prelu",
        "smooth_l1_loss", "triplet_margin_loss",
    },
    # Tensor by value, LibTorch's positional arguments: torch/nn/init.h
    "torch::nn::init": {
        "calculate_gain", "constant_", "eye_", "kaiming_normal_", "kaiming_uniform_", "normal_",
        "ones_", "orthogonal_", "uniform_", "xavier_normal_", "xavier_uniform_", "zeros_",
    },
    # LibTorch's positional norm type: torch/nn/utils/clip_grad.h
    "torch::nn::utils": {"clip_grad_norm_", "clip_grad_value_"},
    # LibTorch's optimizer base, option builders and schedulers
    "torch::optim": {"Adagrad", "AdagradOptions", "Adam", "AdamOptions", "AdamW", "AdamWOptions",
                     "LBFGS", "LBFGSOptions", "LRScheduler", "Optimizer", "RMSprop", "RMSpropOptions", "SGD", "SGDOptions",
                     "StepLR"},
    "torch::cuda": set(),
    "torch::indexing": set(),
}

DECL_KINDS = {
    "FunctionDecl", "FunctionTemplateDecl", "CXXRecordDecl", "ClassTemplateDecl",
    "TypeAliasDecl", "TypedefDecl", "VarDecl", "EnumDecl", "TypeAliasTemplateDecl",
    "UsingDecl", "VarTemplateDecl", "ConceptDecl",
}


def ember_names():
    source = '#include "ember/ember.h"\n'
    # The filter keeps the dump to the declarations whose qualified name holds "ember" (50 MB
    # instead of the whole translation unit's 1 GB, which took a minute to parse): a sequence of
    # JSON objects, the reopened `namespace ember` blocks among them (and std's "member" names).
    out = subprocess.run(
        ["clang++", "-std=c++20", f"-I{ROOT / 'include'}", "-Xclang", "-ast-dump=json",
         "-Xclang", "-ast-dump-filter=ember", "-fsyntax-only", "-x", "c++", "-"],
        input=source, capture_output=True, text=True, check=True)
    names = {ns: set() for ns in TARGETS}

    def walk(node, path):
        for child in node.get("inner", []):
            kind, name = child.get("kind"), child.get("name")
            if kind == "NamespaceDecl":
                walk(child, path + [name])
                continue
            ns = "::".join(path)
            if ns not in names or not name or kind not in DECL_KINDS or child.get("isImplicit"):
                continue
            if "parentDeclContextId" in child:
                continue  # an out-of-class definition of a member (Module::add_hook, ...)
            name = name.split("::")[-1]  # a using-declaration's name is qualified
            if name.startswith("operator") or "<" in name:
                continue  # operators are found through ember::Tensor's namespace anyway
            names[ns].add(name)

    decoder, text, at = json.JSONDecoder(), out.stdout, 0
    while (at := text.find("{", at)) != -1:
        node, at = decoder.raw_decode(text, at)
        if node.get("kind") == "NamespaceDecl" and node.get("name") == "ember":
            walk({"inner": [node]}, [])
    return names


def render(names):
    lines = [
        "// Generated by scripts/gen_libtorch_names.py from ember's public headers: do not edit.",
        "// ember's names in LibTorch's namespaces, less those the layer defines itself.",
        "#pragma once",
        "",
        '#include "ember/ember.h"',
    ]
    for ember_ns, targets in TARGETS.items():
        for target in targets:
            wanted = sorted(names[ember_ns] - OWN[target])
            lines += ["", f"namespace {target} {{"]
            lines += [f"using {ember_ns}::{n};" for n in wanted]
            lines.append(f"}}  // namespace {target}")
    return "\n".join(lines) + "\n"


def main():
    text = render(ember_names())
    if sys.argv[1:] == ["--check"]:
        if not OUTPUT.exists() or OUTPUT.read_text() != text:
            print(f"{OUTPUT.relative_to(ROOT)} is out of date: run scripts/gen_libtorch_names.py")
            return 1
        return 0
    OUTPUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
