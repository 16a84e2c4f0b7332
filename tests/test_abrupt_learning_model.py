"""The encoder (abrupt_learning.model) against Hugging Face's BertModel, the model the official code trains:
same weights in, same outputs out; attention maps are probabilities; the masked/observed MSE by hand."""
import pytest
import torch

from neurips24.abrupt_learning import model as al_model
from neurips24.abrupt_learning.train import Config, masked_observed_mse


def _to_hf(net):
    transformers = pytest.importorskip("transformers")
    c = net.config
    cfg = transformers.BertConfig(vocab_size=c["vocab_size"], hidden_size=c["d"], num_hidden_layers=c["layers"],
                                  num_attention_heads=c["heads"], intermediate_size=c["ffn"],
                                  max_position_embeddings=c["T"], hidden_dropout_prob=0.0,
                                  attention_probs_dropout_prob=0.0, hidden_act="gelu", layer_norm_eps=1e-12)
    hf = transformers.BertModel(cfg, add_pooling_layer=False).eval()
    sd = {"embeddings.word_embeddings.weight": net.tok.weight, "embeddings.position_embeddings.weight": net.pos.weight,
          "embeddings.token_type_embeddings.weight": torch.zeros_like(hf.embeddings.token_type_embeddings.weight),
          "embeddings.LayerNorm.weight": net.ln.weight, "embeddings.LayerNorm.bias": net.ln.bias}
    d = c["d"]
    for i, blk in enumerate(net.blocks):
        p = f"encoder.layer.{i}."
        Wq, Wk, Wv = blk.qkv.weight.split(d)
        bq, bk, bv = blk.qkv.bias.split(d)
        sd |= {p + "attention.self.query.weight": Wq, p + "attention.self.query.bias": bq,
               p + "attention.self.key.weight": Wk, p + "attention.self.key.bias": bk,
               p + "attention.self.value.weight": Wv, p + "attention.self.value.bias": bv,
               p + "attention.output.dense.weight": blk.out.weight,
               p + "attention.output.dense.bias": blk.out.bias,
               p + "attention.output.LayerNorm.weight": blk.ln1.weight,
               p + "attention.output.LayerNorm.bias": blk.ln1.bias,
               p + "intermediate.dense.weight": blk.ff1.weight, p + "intermediate.dense.bias": blk.ff1.bias,
               p + "output.dense.weight": blk.ff2.weight, p + "output.dense.bias": blk.ff2.bias,
               p + "output.LayerNorm.weight": blk.ln2.weight, p + "output.LayerNorm.bias": blk.ln2.bias}
    missing, unexpected = hf.load_state_dict({k: v.detach().clone() for k, v in sd.items()}, strict=False)
    assert not unexpected and all("position_ids" in k or "token_type_ids" in k for k in missing)
    return hf


def test_matches_huggingface_bert():
    torch.manual_seed(0)
    net = al_model.MatrixBERT(2002, 49, d=32, layers=2, heads=4).eval()
    with torch.no_grad():                       # move away from the init so every parameter matters
        for p in net.parameters():
            p.add_(0.05 * torch.randn_like(p))
    hf = _to_hf(net)
    tokens = torch.randint(0, 2002, (3, 49))
    with torch.no_grad():
        y, hidden, _ = net(tokens, return_internals=True)
        ref = hf(input_ids=tokens, attention_mask=torch.ones_like(tokens), output_attentions=False).last_hidden_state
        assert torch.allclose(hidden[-1], ref, atol=1e-5)
        assert torch.allclose(y, net.read_out(ref).squeeze(-1), atol=1e-5)


def test_shapes_and_attention_maps_are_probabilities():
    net = al_model.MatrixBERT(2002, 25, d=16, layers=3, heads=2)
    y, hidden, maps = net(torch.randint(0, 2002, (4, 25)), return_internals=True)
    assert y.shape == (4, 25) and len(hidden) == 4 and hidden[0].shape == (4, 25, 16)
    assert len(maps) == 3 and maps[0].shape == (4, 2, 25, 25)
    assert torch.allclose(maps[1].sum(-1), torch.ones(4, 2, 25), atol=1e-6) and (maps[2] >= 0).all()
    with pytest.raises(ValueError, match="divisible"):
        al_model.MatrixBERT(2002, 25, d=10, heads=4)


def test_masked_observed_mse_by_hand():
    X = torch.tensor([[[1.0, 2.0], [3.0, 4.0]]])
    pred = torch.tensor([[1.5, 2.0, 3.0, 2.0]])
    observed = torch.tensor([[[True, True], [True, False]]])
    masked, obs = masked_observed_mse(pred, X, observed)
    assert masked == pytest.approx(4.0) and obs == pytest.approx(0.25 / 3)


@pytest.mark.parametrize("kw,match", [(dict(r=9), "rank"), (dict(p_mask=1.0), "p_mask"), (dict(lr=0.0), "lr"),
                                      (dict(batch=0), "batch")])
def test_config_validates(kw, match):
    with pytest.raises(ValueError, match=match):
        Config(**kw).validate()


@pytest.mark.parametrize(("observed", "word"), [(torch.ones(2, 2, 2, dtype=torch.bool), "no masked entry"),
                                                (torch.zeros(2, 2, 2, dtype=torch.bool), "no observed entry"),
                                                (torch.ones(2, 4, dtype=torch.bool), "shape")])
def test_masked_observed_mse_refuses_empty_sets(observed, word):
    X = torch.zeros(2, 2, 2)
    with pytest.raises(ValueError, match=word):
        masked_observed_mse(torch.zeros(2, 4), X, observed)
