/* explain_zh.c - the explanation panel in Simplified Chinese: the title and
 * the two or three sentences of every stage, with the same meaning as the
 * English texts of explain.c (expl_of). The formulas are not translated:
 * the panel shows the English ones. pre selects the pre-LN wording where the
 * English text differs. Returns 0 for a stage without a text here, and the
 * panel then stays English. */
#include "panels.h"

typedef struct ZhText {
    const char *title, *text;
} ZhText;

static ZhText zh_of(StageId st, int pre)
{
    switch (st) {
    case ST_SRC_TOKENS:
        return (ZhText){"源句词元",
                        "句子先被切分成词元 (token)，每个词元在词表中查出它的编号。"
                        "模型看到的只有这些编号；词表里没有的词会变成 <unk>。"};
    case ST_TGT_TOKENS:
        return (ZhText){"解码器输入（右移一位）",
                        "解码器读入右移一位、以 <bos> 开头的目标句。"
                        "在位置 i 上它要预测第 i+1 个词元，而且只能看到 i 及之前的词元。"};
    case ST_SRC_EMBED: case ST_TGT_EMBED:
        return (ZhText){"词元嵌入",
                        "每个编号从嵌入矩阵中选出一行：一个由 d_model 个数组成、通过学习得到的向量。"
                        "论文把它乘以 √d_model，使它不会被位置编码淹没。"};
    case ST_POS_ENC:
        return (ZhText){"位置编码",
                        "注意力本身不考虑词序，所以每个位置都得到一组不同波长的正弦和余弦构成的固定图案。"
                        "PE(pos+k) 是 PE(pos) 的一次旋转，因此相对位置很容易读出来。"};
    case ST_ENC_INPUT: case ST_DEC_INPUT:
        return (ZhText){"嵌入 + 位置",
                        "词元的含义和它的位置直接相加。"
                        "这个和就是第一层的输入（训练时还要对它施加 0.1 的 dropout）。"};
    case ST_ENC_SELF_Q: case ST_DEC_SELF_Q: case ST_DEC_CROSS_Q:
        return (ZhText){"查询 (Q)",
                        st == ST_DEC_CROSS_Q
                            ? "在交叉注意力中，查询来自解码器：每个目标位置都在问，它需要源句中的什么。"
                            : "每个词元的查询向量表示它在寻找什么。每个头 h 使用 Q 中属于自己的 d_k 列。"};
    case ST_ENC_SELF_K: case ST_DEC_SELF_K: case ST_DEC_CROSS_K:
        return (ZhText){"键 (K)",
                        st == ST_DEC_CROSS_K
                            ? "在交叉注意力中，键来自编码器的输出，每个源句词元一个。"
                            : "每个词元的键向量表示它能提供什么。查询和键通过点积来匹配。"};
    case ST_ENC_SELF_V: case ST_DEC_SELF_V: case ST_DEC_CROSS_V:
        return (ZhText){"值 (V)",
                        "值是一个词元被关注时交出去的内容：一个头的输出就是各个值向量的加权平均。"};
    case ST_ENC_SELF_SCORES: case ST_DEC_SELF_SCORES: case ST_DEC_CROSS_SCORES:
        return (ZhText){"缩放后的得分",
                        "每个查询都通过点积与每个键相比较。"
                        "除以 √d_k 可以防止得分随维度增大，否则 softmax 会被推入梯度极小的区域。"};
    case ST_ENC_SELF_MASK:
        return (ZhText){"填充掩码",
                        "同一批中的句子被填充到相同长度。"
                        "掩码给填充键的得分加上 −∞，使它们得到的注意力恰好为零。"
                        "填充位置的查询行照样计算，但不会被使用。"};
    case ST_DEC_SELF_MASK:
        return (ZhText){"因果掩码 + 填充掩码",
                        "解码器不能偷看后面：位置 i 只能关注位置 ≤ i。"
                        "正因如此，一次性在整个目标句上训练（教师强制）才是公平的。"};
    case ST_DEC_CROSS_MASK:
        return (ZhText){"源句填充掩码",
                        "交叉注意力可以看所有真实的源句词元，但永远看不到填充。"};
    case ST_ENC_SELF_WEIGHTS: case ST_DEC_SELF_WEIGHTS: case ST_DEC_CROSS_WEIGHTS:
        return (ZhText){"注意力权重",
                        "softmax 把每一行得分变成和为 1 的概率：表示每个查询词元从每个键词元那里取多少。"
                        "被掩码遮住的格子恰好为 0。"};
    case ST_ENC_SELF_HEADS: case ST_DEC_SELF_HEADS: case ST_DEC_CROSS_HEADS:
        return (ZhText){"各头的输出",
                        "每个头用自己的注意力权重对值向量求加权平均，每个词元得到 d_k 个数。"};
    case ST_ENC_SELF_CONCAT: case ST_DEC_SELF_CONCAT: case ST_DEC_CROSS_CONCAT:
        return (ZhText){"拼接各头",
                        "h 个头的输出并排放在一起：每个词元 h × d_k = d_model 个数。"};
    case ST_ENC_SELF_OUT: case ST_DEC_SELF_OUT: case ST_DEC_CROSS_OUT:
        return (ZhText){"输出投影",
                        "W_O 把各个头重新混合成每个词元一个 d_model 维向量，这就是该子层的输出。"};
    case ST_ENC_ADD1: case ST_ENC_ADD2: case ST_DEC_ADD1: case ST_DEC_ADD2: case ST_DEC_ADD3:
        return (ZhText){"残差连接",
                        "子层的输出加回到它的输入上，信息和梯度因此可以直接穿过整个堆栈。"
                        "（训练时先对子层输出施加 0.1 的 dropout。）"};
    case ST_ENC_NORM1: case ST_ENC_NORM2: case ST_DEC_NORM1: case ST_DEC_NORM2: case ST_DEC_NORM3:
        return (ZhText){"层归一化",
                        pre ? "前置归一化（如今常用）：每个子层先把自己的输入归一化，残差相加的和则不做归一化。"
                            : "后置归一化，与论文相同：每个词元的向量被平移到均值 0、缩放到方差 1，"
                              "再用学到的 γ 和 β 拉伸和平移。"};
    case ST_ENC_FINAL: case ST_DEC_FINAL:
        return (ZhText){"最终层归一化", "前置归一化的模型会对整个堆栈的输出再做一次归一化。"};
    case ST_ENC_FFN_HIDDEN: case ST_DEC_FFN_HIDDEN:
        return (ZhText){"前馈网络：隐藏层",
                        "同一个两层网络分别作用于每个位置。"
                        "第一层把每个向量扩展到 d_ff 个数；ReLU 把其中的负数变成恰好 0。"};
    case ST_ENC_FFN_OUT: case ST_DEC_FFN_OUT:
        return (ZhText){"前馈网络：输出", "第二层把向量变回 d_model 个数。"};
    case ST_OUT_LOGITS:
        return (ZhText){"logits",
                        "一个线性层在每个位置上给目标词表里的每个词打分。"
                        "论文中这个矩阵与嵌入矩阵共享。"};
    case ST_OUT_PROBS:
        return (ZhText){"输出概率",
                        "softmax 把得分变成每个词的概率。"
                        "贪心解码选概率最大的那个；束搜索则同时保留几个候选。"};
    default:
        return (ZhText){0, 0};
    }
}

int explain_zh(StageId st, int pre, const char **title, const char **text)
{
    ZhText z = zh_of(st, pre);
    if (!z.title)
        return 0;
    *title = z.title;
    *text = z.text;
    return 1;
}
