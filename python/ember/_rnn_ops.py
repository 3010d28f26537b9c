"""torch.lstm, torch.gru, torch.rnn_tanh, torch.rnn_relu and the *_cell functions (the ops
behind torch.nn's recurrent modules), over ember._C._nn. Packed sequences are not in ember."""
from . import _C

__all__ = ["lstm", "gru", "rnn_tanh", "rnn_relu", "lstm_cell", "gru_cell", "rnn_tanh_cell",
           "rnn_relu_cell"]


def _sequence_op(mode, input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                 batch_first):
    if not isinstance(has_biases, bool):
        raise TypeError("{}(): packed sequences (data, batch_sizes, ...) are not supported by "
                        "ember; pass the padded input".format(mode.lower()))
    h0, c0 = (hx[0], hx[1]) if mode == "LSTM" else (hx, None)
    return _C._nn.rnn(mode, input, h0, c0, list(params), has_biases, num_layers, dropout, train,
                      bidirectional, batch_first)


def lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """-> (output, h_n, c_n); hx is [h_0, c_0]."""
    return _sequence_op("LSTM", input, hx, params, has_biases, num_layers, dropout, train,
                        bidirectional, batch_first)


def gru(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """-> (output, h_n)."""
    return _sequence_op("GRU", input, hx, params, has_biases, num_layers, dropout, train,
                        bidirectional, batch_first)[:2]


def rnn_tanh(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
             batch_first):
    return _sequence_op("RNN_TANH", input, hx, params, has_biases, num_layers, dropout, train,
                        bidirectional, batch_first)[:2]


def rnn_relu(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
             batch_first):
    return _sequence_op("RNN_RELU", input, hx, params, has_biases, num_layers, dropout, train,
                        bidirectional, batch_first)[:2]


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """-> (h', c'); hx is (h, c)."""
    return _C._nn.lstm_cell(input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return _C._nn.gru_cell(input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return _C._nn.rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return _C._nn.rnn_relu_cell(input, hx, w_ih, w_hh, b_ih, b_hh)
