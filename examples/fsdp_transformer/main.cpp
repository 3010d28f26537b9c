// ember-train-transformer-fsdp: a small transformer sequence classifier trained with
// FullyShardedDataParallel, the FSDP example. Launch it like the reference:
//
//   ember-run --standalone --nproc-per-node 2 ember-train-transformer-fsdp --steps 200
//
// The task (generated, nothing to download): a sequence of --seq-len tokens from a vocabulary
// of --vocab, one token planted at a third of the positions and the others drawn from the rest
// of the vocabulary; the label is the planted (most frequent) token. The loss starts at about
// ln(vocab) and falls as the model learns to count.
//
// The model (token and position embeddings, a TransformerEncoder, mean pooling, a Linear head)
// runs under FSDP FULL_SHARD with one unit per encoder layer (transformer_auto_wrap_policy),
// bfloat16 MixedPrecision (parameters, reductions and buffers; the shards and AdamW stay
// float32), activation checkpointing on every encoder layer, and every unit's all-gather
// prefetched in forward and backward (forward_prefetch, BACKWARD_PRE). Every --checkpoint-every
// steps all ranks write a distributed checkpoint, <output-dir>/step_<N>: the model's and AdamW's
// sharded state dicts through dcp::save, with the step and the run's settings. At start the
// newest complete checkpoint there (one with a .metadata) is resumed, on whatever number of
// ranks this run has: dcp::load reshards. The global batch is the same on every world size
// (rank r of W takes rows [r B / W, (r + 1) B / W) of step s's batch, generated from the seed and
// s), so a run resumed on another number of ranks continues the same optimisation.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <ember/distributed/elastic.h>
#include <ember/ember.h>

namespace {

using namespace ember;
namespace fs = std::filesystem;

constexpr const char* kOp = "transformer-fsdp";

struct Config {
  int64_t steps = 200;
  int64_t global_batch = 48;  // divisible by 1, 2, 3, 4, 6, 8 ranks
  int64_t seq_len = 24;
  int64_t vocab = 8;
  int64_t d_model = 32;
  int64_t heads = 4;
  int64_t ff = 64;
  int64_t layers = 2;
  double lr = 3e-3;
  double weight_decay = 0.01;
  double max_grad_norm = 1.0;
  int64_t checkpoint_every = 50;
  int64_t log_every = 10;
  int64_t threads = 0;
  uint64_t seed = 0;
  std::string output_dir = "runs/transformer-fsdp";
};

// Token and position embeddings, the encoder, mean over the sequence, the class head.
struct TransformerClassifier : nn::Module {
  nn::Embedding embed;
  Tensor position;
  nn::TransformerEncoder encoder;
  nn::Linear head;

  explicit TransformerClassifier(const Config& c)
      : embed(register_module("embed", nn::Embedding(c.vocab, c.d_model))),
        position(register_parameter("position", randn({c.seq_len, c.d_model}) * 0.02)),
        encoder(register_module(
            "encoder", nn::TransformerEncoder(
                           nn::TransformerEncoderLayer(c.d_model, c.heads,
                                                       {.dim_feedforward = c.ff, .dropout = 0.0,
                                                        .batch_first = true}),
                           c.layers, nn::LayerNorm(std::vector<int64_t>{c.d_model})))),
        head(register_module("head", nn::Linear(c.d_model, c.vocab))) {}

  Tensor forward(const Tensor& tokens) {
    return head(encoder(embed(tokens) + position).mean(1));
  }
};

struct Batch {
  Tensor tokens, labels;
};

// This rank's rows of step `step`'s global batch: every sample is generated from (seed, its
// index in the whole run), so any world size sees the same data.
Batch make_batch(const Config& c, int64_t step, int rank, int world) {
  const int64_t per_rank = c.global_batch / world;
  std::vector<int64_t> tokens, labels;
  for (int64_t row = 0; row < per_rank; ++row) {
    const uint64_t index = uint64_t(step) * uint64_t(c.global_batch) + uint64_t(rank * per_rank + row);
    std::mt19937_64 rng(c.seed * 0x9E3779B97F4A7C15ull + index);
    const int64_t label = int64_t(rng() % uint64_t(c.vocab));
    std::vector<int64_t> seq(size_t(c.seq_len));
    for (int64_t& t : seq) t = (label + 1 + int64_t(rng() % uint64_t(c.vocab - 1))) % c.vocab;
    // A third of the positions carry the label: more than any other token can get by chance
    // (at vocab 8 and 24 tokens the others average 2.3 each).
    std::vector<int64_t> positions(size_t(c.seq_len));
    for (int64_t i = 0; i < c.seq_len; ++i) positions[size_t(i)] = i;
    std::shuffle(positions.begin(), positions.end(), rng);
    for (int64_t i = 0; i < c.seq_len / 3; ++i) seq[size_t(positions[size_t(i)])] = label;
    tokens.insert(tokens.end(), seq.begin(), seq.end());
    labels.push_back(label);
  }
  return {from_vector(tokens, std::vector<int64_t>{per_rank, c.seq_len}), from_vector(labels)};
}

// What a checkpoint must agree on to be continued (the world size need not).
Dict run_identity(const Config& c) {
  return Dict{{"global_batch", c.global_batch}, {"seq_len", c.seq_len}, {"vocab", c.vocab},
              {"d_model", c.d_model},           {"heads", c.heads},     {"ff", c.ff},
              {"layers", c.layers},             {"seed", int64_t(c.seed)}};
}

void check_identity(const Value& saved, const Dict& now, const std::string& path) {
  for (const auto& [key, value] : now) {
    const Value s = saved[key.to_string()];
    EMBER_CHECK(s.is_int() && s.to_int() == value.to_int(), kOp, "cannot resume ", path,
                ": it was trained with --", key.to_string(), " ", s, ", this run has ", value,
                " (use another --output-dir)");
  }
}

using Fsdp = nn::FullyShardedDataParallel<std::shared_ptr<TransformerClassifier>>;

// One dcp::State for the whole checkpoint: the model's sharded state dict under "model.", the
// optimizer's (its keys start with "optim." already), and the step, the world size that saved
// it and the run's settings in the tree.
dcp::State checkpoint_state(Fsdp& fsdp, optim::Optimizer& opt, int64_t step, int world,
                            const Config& c) {
  dcp::State model = fsdp->sharded_state_dict();
  dcp::State optim = fsdp->sharded_optim_state_dict(opt);
  dcp::State out;
  for (auto& [key, chunk] : model.sharded) out.sharded.emplace_back("model." + key, chunk);
  for (auto& [key, chunk] : optim.sharded) out.sharded.emplace_back(key, chunk);
  out.tree = Dict{{"model", model.tree},
                  {"optim", optim.tree},
                  {"step", step},
                  {"world_size", int64_t(world)},
                  {"run", run_identity(c)}};
  return out;
}

// The part of a loaded checkpoint_state() that one of FSDP's loaders takes: the sharded entries
// under `prefix` (stripped when `strip`), the tree's `subtree`. The tensors are shared.
dcp::State part(const dcp::State& whole, const std::string& prefix, bool strip,
                const std::string& subtree) {
  dcp::State out;
  for (const auto& [key, chunk] : whole.sharded)
    if (key.rfind(prefix, 0) == 0) out.sharded.emplace_back(strip ? key.substr(prefix.size()) : key, chunk);
  out.tree = whole.tree[subtree];
  return out;
}

// FSDP's sharded optimizer loader fills existing state: one AdamW step at lr 0 on zero
// gradients creates it without moving a parameter (the loaded values replace it all).
void initialize_optimizer_state(Fsdp& fsdp, optim::Optimizer& opt) {
  std::vector<double> lrs;
  for (auto& group : opt.param_groups()) {
    lrs.push_back(group.lr());
    group.set_lr(0.0);
  }
  for (Tensor p : fsdp->parameters()) p.mutable_grad() = zeros_like(p);
  opt.step();
  opt.zero_grad();
  for (size_t g = 0; g < lrs.size(); ++g) opt.param_groups()[g].set_lr(lrs[g]);
}

// The newest step_<N> directory with a .metadata (an interrupted save has none), or "".
fs::path newest_checkpoint(const fs::path& dir, std::ostream* out) {
  fs::path best;
  int64_t best_step = -1;
  if (!fs::is_directory(dir)) return best;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory() || name.rfind("step_", 0) != 0) continue;
    char* end = nullptr;
    const long long step = std::strtoll(name.c_str() + 5, &end, 10);
    if (*end != '\0') continue;
    if (!fs::exists(entry.path() / ".metadata")) {
      if (out) *out << "Skipping " << entry.path().string() << ": incomplete (no .metadata)\n";
      continue;
    }
    if (step > best_step) best_step = step, best = entry.path();
  }
  return best;
}

double mean_over_ranks(double value) {
  Tensor t = from_vector(std::vector<double>{value});
  dist::all_reduce(t, {.op = dist::ReduceOp::AVG});
  return t.item<double>();
}

int train(const Config& c) {
  EMBER_CHECK(c.steps > 0 && c.checkpoint_every > 0 && c.log_every > 0 && c.vocab > 1 &&
                  c.seq_len >= 3,
              kOp, "--steps, --checkpoint-every and --log-every must be positive, --vocab > 1, "
              "--seq-len >= 3");
  dist::init_process_group({.backend = "gloo"});
  const int rank = dist::get_rank(), world = dist::get_world_size();
  EMBER_CHECK(c.global_batch % world == 0, kOp, "--global-batch ", c.global_batch,
              " does not split evenly over ", world, " ranks");
  if (c.threads > 0) set_num_threads(int(c.threads));
  std::ostream* out = rank == 0 ? &std::cout : nullptr;

  // ── model: checkpointed layers, then FSDP units of them ──
  manual_seed(c.seed);
  auto model = std::make_shared<TransformerClassifier>(c);
  const std::vector<std::string> checkpointed =
      utils::apply_activation_checkpointing(*model, [](const nn::Module& m) {
        return dynamic_cast<const nn::TransformerEncoderLayerImpl*>(&m) != nullptr;
      });
  Fsdp fsdp(model, {.sharding_strategy = nn::ShardingStrategy::FULL_SHARD,
                    .auto_wrap = nn::transformer_auto_wrap_policy<nn::TransformerEncoderLayerImpl>(),
                    .mixed_precision = {.param_dtype = kBFloat16, .reduce_dtype = kBFloat16,
                                        .buffer_dtype = kBFloat16},
                    .backward_prefetch = nn::BackwardPrefetch::BACKWARD_PRE,
                    .forward_prefetch = true});
  optim::AdamW opt(fsdp->parameters(), {.lr = c.lr, .weight_decay = c.weight_decay});

  // ── resume from the newest complete checkpoint, resharded onto this world size ──
  const fs::path dir = c.output_dir;
  int64_t step = 0;
  if (const fs::path ckpt = newest_checkpoint(dir, out); !ckpt.empty()) {
    initialize_optimizer_state(fsdp, opt);
    dcp::State state = checkpoint_state(fsdp, opt, 0, world, c);
    dcp::load(state, ckpt.string());
    check_identity(state.tree["run"], run_identity(c), ckpt.string());
    fsdp->load_sharded_state_dict(part(state, "model.", /*strip=*/true, "model"));
    fsdp->load_sharded_optim_state_dict(opt, part(state, "optim.", /*strip=*/false, "optim"));
    step = state.tree["step"].to_int();
    if (out)
      *out << "Resumed from " << ckpt.string() << " at step " << step << " (saved on "
           << state.tree["world_size"].to_int() << " ranks, now " << world << ")\n";
  } else if (out) {
    std::string units;
    for (const auto& u : fsdp->units()) units += " (" + u.module_path + ")";
    *out << "Training a " << c.layers << "-layer transformer classifier on " << world
         << " ranks: FSDP " << nn::sharding_strategy_name(fsdp->sharding_strategy())
         << ", bfloat16, units" << units << ", " << checkpointed.size()
         << " checkpointed layers, global batch " << c.global_batch << " (" << c.global_batch / world
         << " per rank), " << c.steps << " steps\n";
  }
  if (rank == 0) fs::create_directories(dir);

  fsdp->train();
  double window_loss = 0;
  int64_t window = 0;
  while (step < c.steps) {
    const Batch batch = make_batch(c, step, rank, world);
    opt.zero_grad();
    Tensor logits = fsdp(batch.tokens).to(kFloat32);
    Tensor loss = nn::functional::cross_entropy(logits, batch.labels);
    loss.backward();
    fsdp->clip_grad_norm_(c.max_grad_norm);
    opt.step();
    ++step;
    window_loss += loss.item<double>();
    ++window;
    if (step % c.log_every == 0 || step == c.steps) {
      const double mean = mean_over_ranks(window_loss / double(window));
      if (out) {
        char line[120];
        std::snprintf(line, sizeof line, "Step %lld | loss %.4f", (long long)step, mean);
        *out << line << "\n" << std::flush;
      }
      window_loss = 0;
      window = 0;
    }
    if (step % c.checkpoint_every == 0 || step == c.steps) {
      const fs::path ckpt = dir / ("step_" + std::to_string(step));
      dcp::save(checkpoint_state(fsdp, opt, step, world, c), ckpt.string());
      if (out) *out << "Saved " << ckpt.string() << " on " << world << " ranks\n" << std::flush;
    }
  }
  dist::destroy_process_group();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  CLI::App app{"Train a small transformer classifier with FullyShardedDataParallel (FULL_SHARD, "
               "bfloat16, activation checkpointing) on every rank ember-run starts, with a "
               "distributed checkpoint every N steps that resumes on any number of ranks."};
  app.add_option("--steps", c.steps, "Optimizer steps in all (a resumed run continues to it)")
      ->capture_default_str();
  app.add_option("--global-batch", c.global_batch, "Sequences per step over all ranks")
      ->capture_default_str();
  app.add_option("--seq-len", c.seq_len, "Tokens per sequence")->capture_default_str();
  app.add_option("--vocab", c.vocab, "Vocabulary size (and classes)")->capture_default_str();
  app.add_option("--d-model", c.d_model, "Model width")->capture_default_str();
  app.add_option("--heads", c.heads, "Attention heads")->capture_default_str();
  app.add_option("--ff", c.ff, "Feed-forward width")->capture_default_str();
  app.add_option("--layers", c.layers, "Encoder layers (each an FSDP unit)")->capture_default_str();
  app.add_option("--lr", c.lr, "AdamW learning rate")->capture_default_str();
  app.add_option("--weight-decay", c.weight_decay, "AdamW decoupled weight decay")
      ->capture_default_str();
  app.add_option("--max-grad-norm", c.max_grad_norm, "FSDP clip_grad_norm_ bound")
      ->capture_default_str();
  app.add_option("--checkpoint-every", c.checkpoint_every, "Steps between distributed checkpoints")
      ->capture_default_str();
  app.add_option("--log-every", c.log_every, "Steps per printed (mean) loss")
      ->capture_default_str();
  app.add_option("--threads", c.threads, "Compute threads per rank (0: OMP_NUM_THREADS, which "
                                         "ember-run sets to 1)")
      ->capture_default_str();
  app.add_option("--seed", c.seed, "Seed for initialisation and data")->capture_default_str();
  app.add_option("--output-dir", c.output_dir, "Where the step_<N> checkpoints go (and the "
                                               "newest is resumed from)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  return dist::elastic::record([&] { return train(c); });
}
