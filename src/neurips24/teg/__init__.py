"""Li et al., NeurIPS 2024 (TEG-DB): textual-edge graphs, on a graph built from NumPy/SciPy/scikit-learn docs."""
from . import encoders, exercises, experiment, features, graph, models, plots, reproduction, tasks
from .encoders import Embeddings, embed_graph, minilm_encode, tfidf_svd
from .experiment import clear_gain, paired_gain, run_gnn_links, run_gnn_nodes, run_plm_features
from .features import incidence_mean, neighbour_mean, plm_features, summed_edge_input
from .graph import TextualEdgeGraph, load_docgraph, make_graph, undirected
from .models import GNN, LinkPredictor, edge_text_vectors, message_graph
from .tasks import hits_at_k, link_split, logreg_accuracy, node_splits, train_link_gnn, train_node_gnn

__all__ = ["encoders", "exercises", "experiment", "features", "graph", "models", "plots", "reproduction", "tasks",
           "Embeddings", "embed_graph", "minilm_encode", "tfidf_svd", "clear_gain", "paired_gain", "run_gnn_links",
           "run_gnn_nodes", "run_plm_features", "incidence_mean", "neighbour_mean", "plm_features",
           "summed_edge_input", "TextualEdgeGraph", "load_docgraph", "make_graph", "undirected", "GNN", "LinkPredictor",
           "edge_text_vectors", "message_graph", "hits_at_k", "link_split", "logreg_accuracy", "node_splits",
           "train_link_gnn", "train_node_gnn"]
