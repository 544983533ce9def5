/* i18n.c - the window's own words in Simplified Chinese. Lessons and the
 * explanation panel have their own texts; this table covers the chrome:
 * block names, tabs, labels, hints, help. Anything not listed stays English
 * (stage names such as enc.self.weights are the same in both). */
#include <string.h>

#include "views.h"

static const char *const ZH[][2] = {
    {"Encoder", "编码器"},
    {"Decoder", "解码器"},
    {"Inputs", "输入"},
    {"Outputs (shifted right)", "输出（右移一位）"},
    {"Outputs (shifted)", "输出（右移）"},
    {"Input Embedding", "输入嵌入"},
    {"Output Embedding", "输出嵌入"},
    {"Embedding", "嵌入"},
    {"⊕ Positional Encoding", "⊕ 位置编码"},
    {"⊕ Positional Enc.", "⊕ 位置编码"},
    {"⊕ Position", "⊕ 位置"},
    {"Multi-Head Attention", "多头注意力"},
    {"Self-Attention", "自注意力"},
    {"Masked Multi-Head Attention", "带掩码的多头注意力"},
    {"Masked Attention", "掩码注意力"},
    {"Multi-Head Attention (encoder K, V)", "交叉注意力（K、V 来自编码器）"},
    {"Cross-Attention", "交叉注意力"},
    {"Feed Forward", "前馈网络"},
    {"Add & Norm", "残差与归一化"},
    {"Add (residual)", "残差相加"},
    {"LayerNorm", "层归一化"},
    {"LayerNorm (final)", "最终层归一化"},
    {"Linear", "线性层"},
    {"Softmax", "Softmax"},
    {"layer", "层"},
    {"Heatmap", "热力图"},
    {"Tokens", "词元"},
    {"Lines", "连线"},
    {"All heads", "所有头"},
    {"Mask", "掩码"},
    {"Waves", "波形"},
    {"ReLU", "ReLU"},
    {"Top-k", "Top-k"},
    {"Decode", "解码"},
    {"Train", "训练"},
    {"sentence", "句子"},
    {"Source", "源句"},
    {"Target", "目标句"},
    {"type a sentence (up to 4, separated by |)", "输入句子（最多 4 句，用 | 分隔）"},
    {"empty: the decoder reads its own greedy translation", "留空：解码器读取自己的贪心翻译"},
    {"←/→ step  [ ] layer  1-9 head  0 all heads  Tab encoder/decoder  ? help",
     "←/→ 步进  [ ] 层  1-9 头  0 所有头  Tab 编码器/解码器  ? 帮助"},
    {"? help", "? 帮助"},
    {"shape", "形状"},
    {"How this number was computed", "这个数是怎样算出来的"},
    {"all heads", "所有头"},
    {"head", "头"},
    {"Keys", "按键"},
    {"previous / next stage", "上一个 / 下一个阶段"},
    {"previous / next layer", "上一层 / 下一层"},
    {"show head 1 … 9", "显示第 1 … 9 个头"},
    {"all heads at once", "同时显示所有头"},
    {"jump between encoder and decoder", "在编码器和解码器之间跳转"},
    {"a token: follow it across views; a block: jump to it", "点词元：在各视图中跟踪它；点模块：跳转过去"},
    {"a cell: its exact value and how it was computed", "悬停单元格：精确数值及其计算过程"},
    {"zoom and pan big matrices (right-click resets)", "缩放和平移大矩阵（右键复原）"},
    {"play / pause stepping", "自动播放 / 暂停"},
    {"bigger / smaller text (presenter mode)", "放大 / 缩小文字（演示模式）"},
    {"theme: dark, light, high contrast", "主题：深色、浅色、高对比度"},
    {"colour map: viridis, cividis, blue-orange", "色图：viridis、cividis、蓝橙"},
    {"lessons; English / 中文", "课程；English / 中文"},
    {"save the window as PNG", "把窗口保存为 PNG"},
    {"save the current matrix as CSV", "把当前矩阵保存为 CSV"},
    {"full screen", "全屏"},
    {"this help", "本帮助"},
    {"leave a text field, close help, quit", "离开输入框、关闭帮助、退出"},
    {"unknown words shown as <unk>", "个未知词显示为 <unk>"},
    {"type a sentence to run the model", "请输入一个句子来运行模型"},
    {"Words outside the model's vocabulary become <unk> (outlined in red): the model cannot tell them apart.",
     "模型词表之外的词会变成 <unk>（红框标出）：模型无法区分它们。"},
    {"zoom %.1fx  (right-click resets)", "缩放 %.1f 倍（右键复原）"},
};

const char *L(const App *a, const char *en)
{
    if (!a || a->lang != 1 || !en)
        return en;
    for (size_t i = 0; i < sizeof ZH / sizeof ZH[0]; i++)
        if (strcmp(ZH[i][0], en) == 0)
            return ZH[i][1];
    return en;
}
