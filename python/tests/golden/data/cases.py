"""Cases of the torch.utils.data golden file (python/tests/golden/data/data.json).

Each case is (setup, expr) as in python/tests/golden/cases.py: run with `torch` bound to the
module under test (never an import of torch: setup reaches the package as torch.utils.data),
`np` bound to NumPy, after torch.manual_seed(0). COMMON is prepended to every setup.
Multi-process cases fork worker processes (num_workers=2); their results must not depend on
scheduling (the DataLoader returns batches in order).
"""

COMMON = """
import collections, random
D = torch.utils.data

class Items(D.Dataset):
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return i

class Noisy(D.Dataset):
    # randomness inside the dataset: torch, random and NumPy, seeded per worker
    def __len__(self):
        return 10
    def __getitem__(self, i):
        info = D.get_worker_info()
        wid = -1 if info is None else info.id
        return {"i": i, "w": wid, "t": torch.rand(2), "r": random.random(),
                "n": float(np.random.rand())}

class Seeds(D.Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        info = D.get_worker_info()
        return (info.id, info.num_workers, info.seed)

class Range(D.IterableDataset):
    # shards itself over the workers with get_worker_info
    def __init__(self, start, end, shard=True):
        self.start, self.end, self.shard = start, end, shard
    def __iter__(self):
        info = D.get_worker_info()
        if info is None or not self.shard:
            return iter(range(self.start, self.end))
        per = -(-(self.end - self.start) // info.num_workers)
        lo = self.start + info.id * per
        return iter(range(lo, min(lo + per, self.end)))
    def __len__(self):
        return self.end - self.start

def gen(seed):
    g = torch.Generator()
    g.manual_seed(seed)
    return g

def epochs(loader, n=2):
    return [list(loader) for _ in range(n)]

def dist(n, shuffle, drop_last, replicas=2, seed=0, epochs=(0, 1, 2)):
    out = []
    for e in epochs:
        row = []
        for r in range(replicas):
            s = D.DistributedSampler(range(n), num_replicas=replicas, rank=r, shuffle=shuffle,
                                     seed=seed, drop_last=drop_last)
            s.set_epoch(e)
            row.append([len(s), list(s)])
        out.append(row)
    return out

P = collections.namedtuple("P", "x y")
"""


def case(expr, setup="", **kw):
    d = {"setup": setup, "expr": expr}
    d.update(kw)
    return d


CASES = [
    # ── shuffling: a seeded generator, and manual_seed only (the default generator) ──────────
    case("epochs(D.DataLoader(list(range(23)), batch_size=5, shuffle=True, generator=gen(7)), 3)",
         label="shuffle generator 3 epochs"),
    case("epochs(D.DataLoader(list(range(23)), batch_size=5, shuffle=True), 3)",
         label="shuffle manual_seed only 3 epochs"),
    case("epochs(D.DataLoader(list(range(23)), batch_size=4, shuffle=True, drop_last=True))",
         label="shuffle drop_last"),
    case("[epochs(L), torch.rand(3)]",
         "L = D.DataLoader(Items(9), batch_size=2, shuffle=True)",
         label="default generator state after two shuffled epochs"),
    case("[list(D.DataLoader(list(range(5)), batch_size=2)), torch.rand(2)]",
         label="no shuffle still draws base_seed"),
    case("list(D.DataLoader(D.TensorDataset(x, y), batch_size=4, shuffle=True, generator=gen(3)))",
         "x = torch.arange(40.).reshape(20, 2)\ny = torch.arange(20)",
         label="TensorDataset shuffled"),
    case("[list(D.RandomSampler(range(12), generator=gen(1))), list(D.RandomSampler(range(12)))]",
         label="RandomSampler"),
    case("list(D.RandomSampler(range(12), num_samples=30, generator=gen(2)))",
         label="RandomSampler num_samples > n"),
    case("list(D.RandomSampler(range(9), replacement=True, num_samples=70, generator=gen(3)))",
         label="RandomSampler replacement 70"),
    case("[list(D.RandomSampler(range(9), replacement=True)), len(D.RandomSampler(range(9), replacement=True, num_samples=5))]",
         label="RandomSampler replacement default"),
    case("D.RandomSampler(range(3), replacement=1)", label="RandomSampler bad replacement"),
    case("D.RandomSampler(range(3), num_samples=0)", label="RandomSampler bad num_samples"),
    case("[list(D.SubsetRandomSampler([10, 20, 30, 40, 50], generator=gen(4))), list(D.SubsetRandomSampler([1, 2, 3]))]",
         label="SubsetRandomSampler"),
    case("[list(D.BatchSampler(range(10), 3, False)), list(D.BatchSampler(range(10), 3, True)), "
         "len(D.BatchSampler(range(10), 3, False)), len(D.BatchSampler(range(10), 3, True))]",
         label="BatchSampler"),
    case("D.BatchSampler(range(10), 0, False)", label="BatchSampler batch_size 0"),
    case("list(D.DataLoader(Items(10), batch_sampler=D.BatchSampler(D.SequentialSampler(range(10)), 4, False)))",
         label="DataLoader batch_sampler"),
    case("[len(D.DataLoader(Items(10), batch_size=3)), len(D.DataLoader(Items(10), batch_size=3, drop_last=True)), "
         "len(D.DataLoader(Range(0, 7), batch_size=2)), len(D.DataLoader(Range(0, 7), batch_size=2, drop_last=True))]",
         label="len(DataLoader)"),
    case("D.DataLoader(Items(3), batch_size=2, shuffle=True, sampler=D.SequentialSampler(range(3)))",
         label="sampler and shuffle"),
    case("D.DataLoader(Range(0, 3), shuffle=True)", label="IterableDataset with shuffle"),
    # ── random_split ─────────────────────────────────────────────────────────────────────────
    case("[list(s) for s in D.random_split(range(10), [3, 7], generator=gen(42))]",
         label="random_split generator"),
    case("[list(s) for s in D.random_split(range(30), [0.3, 0.3, 0.4], generator=gen(42))]",
         label="random_split fractions"),
    case("[list(s) for s in D.random_split(range(11), [0.5, 0.25, 0.25], generator=gen(5))]",
         label="random_split fractions remainder"),
    case("[[s.indices for s in D.random_split(range(8), [5, 3])], torch.rand(2)]",
         label="random_split default generator"),
    case("D.random_split(range(10), [3, 3])", label="random_split bad lengths"),
    case("D.random_split(range(10), [1.5, -0.5])", label="random_split bad fraction"),
    # ── DistributedSampler, 2 replicas, set_epoch ────────────────────────────────────────────
    case("dist(10, True, False)", label="DistributedSampler 10 shuffle"),
    case("dist(11, True, False)", label="DistributedSampler 11 shuffle pad"),
    case("dist(11, True, True)", label="DistributedSampler 11 shuffle drop_last"),
    case("dist(11, False, False)", label="DistributedSampler 11 no shuffle"),
    case("dist(11, False, True)", label="DistributedSampler 11 no shuffle drop_last"),
    case("dist(2, True, False, replicas=5, seed=3)", label="DistributedSampler pad beyond length"),
    case("dist(7, True, False, replicas=3, seed=11)", label="DistributedSampler 3 replicas seed 11"),
    case("D.DistributedSampler(range(4), num_replicas=2, rank=2)", label="DistributedSampler bad rank"),
    case("list(D.DataLoader(Items(9), batch_size=2, sampler=s))",
         "s = D.DistributedSampler(Items(9), num_replicas=2, rank=1, seed=4)\ns.set_epoch(3)",
         label="DataLoader over DistributedSampler"),
    # ── datasets ─────────────────────────────────────────────────────────────────────────────
    case("[len(c), c[0], c[4], c[5], c[-1], c[-12], c.cumulative_sizes]",
         "c = D.ConcatDataset([Items(5), Items(7)])", label="ConcatDataset"),
    case("c[-13]", "c = D.ConcatDataset([Items(5), Items(7)])", label="ConcatDataset index too small"),
    case("[len(s), s[0], s[2], list(s)]", "s = D.Subset(Items(10), [7, 3, 5])", label="Subset"),
    case("[list(Range(0, 3) + Range(5, 7)), len(Range(0, 3) + Range(5, 7))]", label="ChainDataset"),
    case("[len(t), t[1], t[-1]]", "t = D.TensorDataset(torch.arange(6).reshape(3, 2), torch.tensor([1., 2., 3.]))",
         label="TensorDataset"),
    # ── collation ────────────────────────────────────────────────────────────────────────────
    case("D.default_collate([0, 1, 2, 3])", label="collate ints"),
    case("D.default_collate([0.5, 1.5])", label="collate floats"),
    case("D.default_collate([True, False])", label="collate bools"),
    case("D.default_collate(['a', 'b', 'c'])", label="collate strings"),
    case("[type(r).__name__, [x.decode() for x in r]]", "r = D.default_collate([b'a', b'b'])",
         label="collate bytes"),
    case("D.default_collate([{'A': 0, 'B': 1}, {'A': 100, 'B': 100}])", label="collate dicts"),
    case("D.default_collate([(0, 1), (2, 3)])", label="collate tuples"),
    case("D.default_collate([[0, 1], [2, 3]])", label="collate lists"),
    case("[type(r).__name__, tuple(r)]", "r = D.default_collate([P(0, 1.5), P(2, 3.5)])",
         label="collate namedtuple"),
    case("D.default_collate([torch.tensor([1., 2.]), torch.tensor([3., 4.])])", label="collate tensors"),
    case("D.default_collate([torch.tensor(1, dtype=torch.int32), torch.tensor(2, dtype=torch.int32)])",
         label="collate 0-d tensors"),
    case("D.default_collate([np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)])",
         label="collate numpy int32 arrays"),
    case("D.default_collate([np.array(1.5), np.array(2.5)])", label="collate numpy 0-d arrays"),
    case("D.default_collate([np.float32(1.5), np.float32(2.5)])", label="collate numpy float32 scalars"),
    case("D.default_collate([np.float64(1.5), np.float64(2.5)])", label="collate numpy float64 scalars"),
    case("D.default_collate([np.int64(1), np.int64(2)])", label="collate numpy int64 scalars"),
    case("D.default_collate([np.int32(1), np.int32(2)])", label="collate numpy int32 scalars"),
    case("D.default_collate([np.uint8(1), np.uint8(200)])", label="collate numpy uint8 scalars"),
    case("D.default_collate([np.bool_(True), np.bool_(False)])", label="collate numpy bool scalars"),
    case("D.default_collate([np.int32(1), np.float32(2.5)])", label="collate numpy mixed scalars"),
    case("D.default_collate([np.float32(1), 2.5])", label="collate numpy scalar then float"),
    case("D.default_collate([np.array(['a']), np.array(['b'])])", label="collate numpy string arrays"),
    case("D.default_collate([object(), object()])", label="collate unsupported"),
    case("D.default_collate([[0, 1], [2]])", label="collate unequal lists"),
    case("D.default_collate([torch.zeros(2), torch.zeros(3)])", label="collate unequal tensors"),
    case("D.default_collate(batch)",
         "batch = [{'img': torch.full((2, 2), float(i)), 'meta': (i, 'n%d' % i, [np.float32(i), i * 0.5]),\n"
         "          'p': P(np.array([i, i + 1]), {'k': torch.tensor(i)}), 'flag': i % 2 == 0}\n"
         "         for i in range(3)]",
         label="collate nested structure"),
    case("[r['p'].y, type(r['p']).__name__, type(r['meta']).__name__]",
         "batch = [{'p': P(i, {'k': [i, i]}), 'meta': (i, 'x')} for i in range(2)]\n"
         "r = D.default_collate(batch)", label="collate nested types"),
    case("D.default_convert(np.array([0, 1]))", label="convert numpy array"),
    case("D.default_convert(np.float32(2.5))", label="convert numpy scalar"),
    case("D.default_convert(np.int16(7))", label="convert numpy int16 scalar"),
    case("D.default_convert((np.array([1.5]), 3, 'a'))", label="convert tuple"),
    case("D.default_convert({'a': np.array([1]), 'b': [np.array([2.]), 5]})", label="convert dict"),
    case("[type(r).__name__, tuple(r)]", "r = D.default_convert(P(np.array(0), np.array(1.0)))",
         label="convert namedtuple"),
    case("type(D.default_convert(np.array(['a', 'b']))).__name__", label="convert string array unchanged"),
    case("D.default_convert(0)", label="convert int unchanged"),
    case("list(D.DataLoader([np.array([i, i]) for i in range(3)], batch_size=None))",
         label="DataLoader batch_size=None converts"),
    case("list(D.DataLoader(Items(7), batch_size=3, collate_fn=lambda b: [x * 10 for x in b]))",
         label="DataLoader collate_fn"),
    # ── worker processes: seeding, get_worker_info, IterableDataset sharding ────────────────
    case("list(D.DataLoader(Noisy(), batch_size=3, num_workers=2, generator=gen(123)))",
         label="workers randomness seeded generator"),
    case("[list(D.DataLoader(Noisy(), batch_size=3, num_workers=2)), torch.rand(2)]",
         label="workers randomness manual_seed only"),
    case("list(D.DataLoader(Noisy(), batch_size=4, num_workers=0, generator=gen(5)))",
         "random.seed(0)\nnp.random.seed(0)",
         label="main process randomness"),
    case("list(D.DataLoader(Seeds(), batch_size=None, num_workers=2, generator=gen(9)))",
         label="worker seeds"),
    case("list(D.DataLoader(Range(3, 10), batch_size=2, num_workers=2))",
         label="IterableDataset sharded 2 workers"),
    case("list(D.DataLoader(Range(3, 10), batch_size=2, num_workers=2, drop_last=True))",
         label="IterableDataset sharded drop_last"),
    case("list(D.DataLoader(Range(0, 4, shard=False), num_workers=2))",
         label="IterableDataset unsharded duplicates"),
    case("list(D.DataLoader(Range(0, 9), batch_size=None, num_workers=3))",
         label="IterableDataset no batching 3 workers"),
    case("epochs(D.DataLoader(Items(11), batch_size=3, shuffle=True, num_workers=2, generator=gen(8), persistent_workers=True))",
         label="persistent workers shuffled"),
    case("epochs(D.DataLoader(Noisy(), batch_size=5, num_workers=2, generator=gen(1), persistent_workers=True))",
         label="persistent workers randomness"),
    case("list(D.DataLoader(Items(10), batch_size=2, num_workers=2, prefetch_factor=1, shuffle=True, generator=gen(2)))",
         label="prefetch_factor 1"),
    case("[list(D.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 0.0], 12, generator=gen(5))), "
         "list(D.WeightedRandomSampler([1, 2, 3, 4], 3, replacement=False, generator=gen(6))), "
         "list(D.WeightedRandomSampler(torch.tensor([0.5, 0.5]), 4)), len(D.WeightedRandomSampler([1, 1], 7))]",
         label="WeightedRandomSampler"),
    case("list(D.DataLoader(Items(8), batch_size=3, sampler=D.WeightedRandomSampler([1.0] * 4 + [3.0] * 4, 9, generator=gen(7))))",
         label="DataLoader with a WeightedRandomSampler"),
    case("D.WeightedRandomSampler([1, 2], 0)", label="WeightedRandomSampler bad num_samples"),
    case("D.WeightedRandomSampler([1, 2], 2, replacement=1)", label="WeightedRandomSampler bad replacement"),
    case("D.WeightedRandomSampler([[1, 2]], 2)", label="WeightedRandomSampler 2-d weights"),
]
