// MIOpenDriver's flags for the commands kdbgen has no problem of its own for
// (issue #50; DriverCommandProblem in include/kdbgen/enumerate.hpp): long name
// and short letter(s) as each driver's AddCmdLineArgs defines them with
// InputFlags::AddInputFlag, the union of MIOpen 3.3.0 (rocm-6.3.0) and 3.5.1
// (the develop tree of 2025-09-26), so that a line either driver runs reads.
// Facts, written down from the files named before each group; `--help`/`-h`
// every command has (driver/InputFlags.cpp:66) is left out: a log line never
// holds it. rnn's `time` flag, which 3.5.1's main.cpp:84 reads but the rnn
// drivers no longer define (ROCm/MIOpen PR #3180), is not a flag here either.
#include "kdbgen/enumerate.hpp"

namespace kdbgen {

const std::map<std::string, std::vector<DriverFlag>, std::less<>>& driver_flag_table() {
    static const std::map<std::string, std::vector<DriverFlag>, std::less<>> table = [] {
        std::map<std::string, std::vector<DriverFlag>, std::less<>> t;
        // adam, adamfp16, adamw, adamwfp16: driver/adam_driver.hpp (3.3.0); driver/adam_driver.hpp (3.5.1)
        for (const char* command : {"adam", "adamfp16", "adamw", "adamwfp16"})
            t[command] = {{"forw", "F"}, {"dims", "d"}, {"lr", "l"}, {"beta1", "1"}, {"beta2", "2"}, {"eps", "e"}, {"weight_decay", "W"}, {"amsgrad", "a"}, {"maximize", "m"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"wall", "w"}};
        // ampadam, ampadamw: driver/adam_driver.hpp (3.3.0); driver/adam_driver.hpp (3.5.1)
        for (const char* command : {"ampadam", "ampadamw"})
            t[command] = {{"forw", "F"}, {"dims", "d"}, {"lr", "l"}, {"beta1", "1"}, {"beta2", "2"}, {"eps", "e"}, {"weight_decay", "W"}, {"amsgrad", "a"}, {"maximize", "m"}, {"scale", "s"}, {"found_inf", "f"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"wall", "w"}};
        // transformersadamw, transformersadamwfp16: driver/transformers_adam_w_driver.hpp (3.3.0); driver/transformers_adam_w_driver.hpp (3.5.1)
        for (const char* command : {"transformersadamw", "transformersadamwfp16"})
            t[command] = {{"forw", "F"}, {"dims", "d"}, {"lr", "l"}, {"beta1", "1"}, {"beta2", "2"}, {"eps", "e"}, {"weight_decay", "W"}, {"correct_bias", "c"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"wall", "w"}};
        // transformersampadamw: driver/transformers_adam_w_driver.hpp (3.3.0); driver/transformers_adam_w_driver.hpp (3.5.1)
        for (const char* command : {"transformersampadamw"})
            t[command] = {{"forw", "F"}, {"dims", "d"}, {"lr", "l"}, {"beta1", "1"}, {"beta2", "2"}, {"eps", "e"}, {"weight_decay", "W"}, {"correct_bias", "c"}, {"scale", "s"}, {"found_inf", "f"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"wall", "w"}};
        // addlayernorm, addlayernormfp16, addlayernormbfp16, layernorm, layernormfp16, layernormbfp16: driver/addlayernorm_driver.hpp (3.3.0); driver/addlayernorm_driver.hpp (3.5.1); driver/layernorm_driver.hpp (3.3.0); driver/layernorm_driver.hpp (3.5.1)
        for (const char* command : {"addlayernorm", "addlayernormfp16", "addlayernormbfp16", "layernorm", "layernormfp16", "layernormbfp16"})
            t[command] = {{"forw", "F"}, {"input", "X"}, {"eps", "e"}, {"normalized_dim", "o"}, {"mode", "m"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"wall", "w"}};
        // cat, catfp16, catbfp16: driver/cat_driver.hpp (3.3.0); driver/cat_driver.hpp (3.5.1)
        for (const char* command : {"cat", "catfp16", "catbfp16"})
            t[command] = {{"forw", "F"}, {"input1", "1"}, {"input2", "2"}, {"input3", "3"}, {"input4", "4"}, {"input5", "5"}, {"input6", "6"}, {"input7", "7"}, {"input8", "8"}, {"dim", "d"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"wall", "w"}};
        // ctc: driver/ctc_driver.hpp (3.3.0); driver/ctc_driver.hpp (3.5.1)
        for (const char* command : {"ctc"})
            t[command] = {{"forw", "F"}, {"apply_softmax_layer", "m"}, {"blank_label_id", "b"}, {"input_len", "k"}, {"label_len", "l"}, {"num_class", "c"}, {"batchsize", "n"}, {"iter", "i"}, {"verify", "V"}, {"verify_path", "v"}, {"time", "t"}, {"wall", "w"}, {"dump_output", "o"}, {"ctcalgo", "a"}};
        // dropout, dropoutfp16: driver/dropout_driver.hpp (3.3.0); driver/dropout_driver.hpp (3.5.1)
        for (const char* command : {"dropout", "dropoutfp16"})
            t[command] = {{"forw", "F"}, {"input_dim", "d"}, {"dropout", "p"}, {"seed_low", "l"}, {"seed_high", "m"}, {"use_mask", "e"}, {"gen_file", "f"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"wall", "w"}, {"dump_output", "o"}, {"mt", "u"}};
        // gemm, gemmfp16: driver/gemm_driver.hpp (3.3.0); driver/gemm_driver.hpp (3.5.1)
        for (const char* command : {"gemm", "gemmfp16"})
            t[command] = {{"forw", "F"}, {"batch_count", "b"}, {"isColMajor", "C"}, {"a_h", "m"}, {"a_w", "k"}, {"b_w", "n"}, {"alpha", "A"}, {"beta", "B"}, {"transA", "u"}, {"transB", "v"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}};
        // getitem, getitemfp16, getitembfp16: driver/getitem_driver.hpp (3.3.0); driver/getitem_driver.hpp (3.5.1)
        for (const char* command : {"getitem", "getitemfp16", "getitembfp16"})
            t[command] = {{"forw", "F"}, {"doutput", "O"}, {"indexs", "D"}, {"dinput", "N"}, {"indexcount", "1"}, {"dimcount", "2"}, {"dims", "3"}, {"slicecount", "4"}, {"slices", "5"}, {"offset", "6"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"wall", "w"}};
        // glu, glufp16, glubfp16: driver/glu_driver.hpp (3.3.0); driver/glu_driver.hpp (3.5.1)
        for (const char* command : {"glu", "glufp16", "glubfp16"})
            t[command] = {{"forw", "F"}, {"dim_lengths", "D"}, {"dim_to_split", "R"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"wall", "w"}};
        // groupnorm, groupnormfp16, groupnormbfp16: driver/groupnorm_driver.hpp (3.3.0); driver/groupnorm_driver.hpp (3.5.1)
        for (const char* command : {"groupnorm", "groupnormfp16", "groupnormbfp16"})
            t[command] = {{"forw", "F"}, {"batchsize", "n"}, {"in_channels", "c"}, {"in_d", "D"}, {"in_h", "H"}, {"in_w", "W"}, {"eps", "e"}, {"num_groups", "g"}, {"mode", "m"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"wall", "w"}};
        // kthvalue, kthvaluefp16, kthvaluebfp16: driver/kthvalue_driver.hpp (3.3.0); driver/kthvalue_driver.hpp (3.5.1)
        for (const char* command : {"kthvalue", "kthvaluefp16", "kthvaluebfp16"})
            t[command] = {{"forw", "F"}, {"dim-lengths", "D"}, {"k", "k"}, {"dim", "d"}, {"keep-dim", "K"}, {"is-contiguous", "c"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"wall", "w"}};
        // multimarginloss, multimarginlossfp16, multimarginlossbfp16: driver/multimarginloss_driver.hpp (3.3.0); driver/multimarginloss_driver.hpp (3.5.1)
        for (const char* command : {"multimarginloss", "multimarginlossfp16", "multimarginlossbfp16"})
            t[command] = {{"forw", "F"}, {"dim", "D"}, {"contiguous", "C"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"wall", "w"}, {"reduce", "R"}};
        // prelu, prelufp16, prelubfp16: driver/prelu_driver.hpp (3.3.0); driver/prelu_driver.hpp (3.5.1)
        for (const char* command : {"prelu", "prelufp16", "prelubfp16"})
            t[command] = {{"forw", "F"}, {"input", "D"}, {"NumParameters", "P"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"wall", "w"}};
        // reduce, reducefp16, reducefp64: driver/reduce_driver.hpp (3.3.0); driver/reduce_driver.hpp (3.5.1)
        for (const char* command : {"reduce", "reducefp16", "reducefp64"})
            t[command] = {{"forw", "F"}, {"DimLengths", "D"}, {"DimsToReduce", "R"}, {"ReduceOp", "O"}, {"CompType", "C"}, {"NanPropagation", "N"}, {"IndicesUsed", "I"}, {"alpha", "A"}, {"beta", "B"}, {"wall", "w"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"dump_output", "o"}, {"in_data", "d"}};
        // reducecalculation, reducecalculationfp16, reducecalculationbfp16: driver/reducecalculation_driver.hpp (3.3.0); driver/reducecalculation_driver.hpp (3.5.1)
        for (const char* command : {"reducecalculation", "reducecalculationfp16", "reducecalculationbfp16"})
            t[command] = {{"forw", "F"}, {"input", "X"}, {"DimToReduce", "R"}, {"NanPropagation", "N"}, {"ReduceCalculationOp", "O"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"wall", "w"}};
        // reduceextreme, reduceextremefp16, reduceextremebfp16: driver/reduceextreme_driver.hpp (3.3.0); driver/reduceextreme_driver.hpp (3.5.1)
        for (const char* command : {"reduceextreme", "reduceextremefp16", "reduceextremebfp16"})
            t[command] = {{"forw", "F"}, {"input", "X"}, {"DimToReduce", "R"}, {"ReduceExtremeOp", "O"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"wall", "w"}};
        // rnn, rnnfp16: driver/rnn_driver.hpp (3.3.0); driver/rnn_driver.hpp (3.5.1)
        for (const char* command : {"rnn", "rnnfp16"})
            t[command] = {{"forw", "F"}, {"num_layer", "l"}, {"seq_len", "k"}, {"bidirection", "r"}, {"batchsize", "n"}, {"hid_h", "H"}, {"in_h", "W"}, {"iter", "i"}, {"verify", "V"}, {"wall", "w"}, {"dump_output", "o"}, {"bias", "b"}, {"mode", "m"}, {"inputmode", "p"}, {"use_padding", "q"}, {"rnnalgo", "a"}, {"fwdtype", "c"}, {"datatype", "f"}, {"use_dropout", "U"}, {"dropout", "P"}, {"seed_low", "L"}, {"seed_high", "M"}};
        // rnn_seq, rnn_seqfp16: driver/rnn_seq_driver.hpp (3.3.0); driver/rnn_seq_driver.hpp (3.5.1)
        for (const char* command : {"rnn_seq", "rnn_seqfp16"})
            t[command] = {{"forw", "F"}, {"fwdtype", "c"}, {"mode", "m"}, {"datatype", "f"}, {"io_layout", "I"}, {"num_layer", "l"}, {"batch_size", "n"}, {"seq_len", "k"}, {"seq_len_array", "K"}, {"hid_h", "H"}, {"in_vec", "W"}, {"bidirection", "r"}, {"bias", "b"}, {"inputmode", "p"}, {"rnnalgo", "a"}, {"use_dropout", "U"}, {"dropout", "P"}, {"seed_low", "L"}, {"seed_high", "M"}, {"iter", "i"}, {"verify", "V"}, {"wall", "w"}, {"dump_output", "o"}};
        // rope, ropefp16, ropebfp16: driver/rope_driver.hpp (3.3.0); driver/rope_driver.hpp (3.5.1)
        for (const char* command : {"rope", "ropefp16", "ropebfp16"})
            t[command] = {{"forw", "F"}, {"input", "X"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"wall", "w"}};
        // softmarginloss, softmarginlossfp16, softmarginlossbfp16: driver/softmarginloss_driver.hpp (3.3.0); driver/softmarginloss_driver.hpp (3.5.1)
        for (const char* command : {"softmarginloss", "softmarginlossfp16", "softmarginlossbfp16"})
            t[command] = {{"forw", "F"}, {"dim", "D"}, {"stride", "S"}, {"contiguous", "C"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"wall", "w"}, {"reduce", "R"}};
        // t5layernorm, t5layernormfp16, t5layernormbfp16: driver/t5layernorm_driver.hpp (3.3.0); driver/t5layernorm_driver.hpp (3.5.1)
        for (const char* command : {"t5layernorm", "t5layernormfp16", "t5layernormbfp16"})
            t[command] = {{"forw", "F"}, {"input", "X"}, {"eps", "e"}, {"mode", "m"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"wall", "w"}};
        // CBAInfer, CBAInferfp16: driver/CBAInferFusion_driver.hpp (3.3.0); driver/CBAInferFusion_driver.hpp (3.5.1)
        for (const char* command : {"CBAInfer", "CBAInferfp16"})
            t[command] = {{"batchsize", "n"}, {"in_channels", "c"}, {"in_h", "H"}, {"in_w", "W"}, {"out_channels", "k"}, {"group_count", "g"}, {"fil_h", "y"}, {"fil_w", "x"}, {"conv_stride_h", "u"}, {"conv_stride_w", "v"}, {"pad_h", "p"}, {"pad_w", "q"}, {"pad_val", "r"}, {"alpha", "A"}, {"beta", "B"}, {"gamma", "G"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"activMode", "m"}, {"bnMode", "M"}, {"wall", "w"}, {"dilation_h", "l"}, {"dilation_w", "j"}, {"pad_mode", "z"}, {"fusion_mode", "FJ"}, {"dot_graph", "D"}, {"spatial_dim", "_"}, {"in_layout", "I"}, {"out_layout", "O"}, {"fil_layout", "f"}, {"in_d", "!"}, {"fil_d", "@"}, {"conv_stride_d", "#"}, {"pad_d", "$"}, {"dilation_d", "^"}};
        // CBAInferbfp16, CAInfer, CAInferfp16, CAInferbfp16: driver/CBAInferFusion_driver.hpp (3.5.1)
        for (const char* command : {"CBAInferbfp16", "CAInfer", "CAInferfp16", "CAInferbfp16"})
            t[command] = {{"spatial_dim", "_"}, {"in_layout", "I"}, {"out_layout", "O"}, {"fil_layout", "f"}, {"batchsize", "n"}, {"in_channels", "c"}, {"in_d", "!"}, {"in_h", "H"}, {"in_w", "W"}, {"out_channels", "k"}, {"group_count", "g"}, {"fil_d", "@"}, {"fil_h", "y"}, {"fil_w", "x"}, {"conv_stride_d", "#"}, {"conv_stride_h", "u"}, {"conv_stride_w", "v"}, {"pad_d", "$"}, {"pad_h", "p"}, {"pad_w", "q"}, {"pad_val", "r"}, {"alpha", "A"}, {"beta", "B"}, {"gamma", "G"}, {"iter", "i"}, {"verify", "V"}, {"time", "t"}, {"activMode", "m"}, {"bnMode", "M"}, {"wall", "w"}, {"dilation_d", "^"}, {"dilation_h", "l"}, {"dilation_w", "j"}, {"pad_mode", "z"}, {"fusion_mode", "J"}, {"dot_graph", "D"}};
        return t;
    }();
    return table;
}

}  // namespace kdbgen
