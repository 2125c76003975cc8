// Exact decimal → binary64 conversion from bytes, without allocating.
//
// The fast path multiplies the decimal significand by a 128-bit approximation of the power of five
// and keeps the result only when the rounding decision cannot be affected by the approximation
// error (the idea of Clinger 1990 and of Lemire, "Number Parsing at a Gigabyte per Second",
// Software: Practice and Experience 51(8), 2021). Everything else (more than 19 significant digits,
// exponents outside ±100, ambiguous roundings, subnormals) goes to the standard library's
// correctly rounded parser, so every result is the correctly rounded value of the text.

/// Parses numbers written as ASCII bytes: exact (correctly rounded), without allocating.
///
/// Public for the other decoders of the package (the network devices' JSON scanners).
public enum DecimalParser {
    /// Powers of ten that are exact in binary64 (10⁰ … 10²²).
    @usableFromInline
    static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Smallest and largest decimal exponent of ``powersOfFive``.
    static let smallestPower = -100
    static let largestPower = 100

    /// For q in −100…100: `T = ⌊5^q · 2^s⌋` normalised to 128 bits (`hi`, `lo`) and the shift `s`.
    /// Generated with exact integer arithmetic: for q ≥ 0, 5^q shifted (or truncated) to 128 bits;
    /// for q < 0, ⌊2^s / 5^−q⌋ with s chosen so the quotient has 128 bits. Exact for 0 ≤ q ≤ 55.
    static let powersOfFive: [(hi: UInt64, lo: UInt64, shift: Int)] = [
        (0xDFF9772470297EBD, 0x59787E2B93BC56F7, 360), // 5^-100
        (0x8BFBEA76C619EF36, 0x57EB4EDB3C55B65A, 357), // 5^-99
        (0xAEFAE51477A06B03, 0xEDE622920B6B23F1, 355), // 5^-98
        (0xDAB99E59958885C4, 0xE95FAB368E45ECED, 353), // 5^-97
        (0x88B402F7FD75539B, 0x11DBCB0218EBB414, 350), // 5^-96
        (0xAAE103B5FCD2A881, 0xD652BDC29F26A119, 348), // 5^-95
        (0xD59944A37C0752A2, 0x4BE76D3346F0495F, 346), // 5^-94
        (0x857FCAE62D8493A5, 0x6F70A4400C562DDB, 343), // 5^-93
        (0xA6DFBD9FB8E5B88E, 0xCB4CCD500F6BB952, 341), // 5^-92
        (0xD097AD07A71F26B2, 0x7E2000A41346A7A7, 339), // 5^-91
        (0x825ECC24C873782F, 0x8ED400668C0C28C8, 336), // 5^-90
        (0xA2F67F2DFA90563B, 0x728900802F0F32FA, 334), // 5^-89
        (0xCBB41EF979346BCA, 0x4F2B40A03AD2FFB9, 332), // 5^-88
        (0xFEA126B7D78186BC, 0xE2F610C84987BFA8, 330), // 5^-87
        (0x9F24B832E6B0F436, 0x0DD9CA7D2DF4D7C9, 327), // 5^-86
        (0xC6EDE63FA05D3143, 0x91503D1C79720DBB, 325), // 5^-85
        (0xF8A95FCF88747D94, 0x75A44C6397CE912A, 323), // 5^-84
        (0x9B69DBE1B548CE7C, 0xC986AFBE3EE11ABA, 320), // 5^-83
        (0xC24452DA229B021B, 0xFBE85BADCE996168, 318), // 5^-82
        (0xF2D56790AB41C2A2, 0xFAE27299423FB9C3, 316), // 5^-81
        (0x97C560BA6B0919A5, 0xDCCD879FC967D41A, 313), // 5^-80
        (0xBDB6B8E905CB600F, 0x5400E987BBC1C920, 311), // 5^-79
        (0xED246723473E3813, 0x290123E9AAB23B68, 309), // 5^-78
        (0x9436C0760C86E30B, 0xF9A0B6720AAF6521, 306), // 5^-77
        (0xB94470938FA89BCE, 0xF808E40E8D5B3E69, 304), // 5^-76
        (0xE7958CB87392C2C2, 0xB60B1D1230B20E04, 302), // 5^-75
        (0x90BD77F3483BB9B9, 0xB1C6F22B5E6F48C2, 299), // 5^-74
        (0xB4ECD5F01A4AA828, 0x1E38AEB6360B1AF3, 297), // 5^-73
        (0xE2280B6C20DD5232, 0x25C6DA63C38DE1B0, 295), // 5^-72
        (0x8D590723948A535F, 0x579C487E5A38AD0E, 292), // 5^-71
        (0xB0AF48EC79ACE837, 0x2D835A9DF0C6D851, 290), // 5^-70
        (0xDCDB1B2798182244, 0xF8E431456CF88E65, 288), // 5^-69
        (0x8A08F0F8BF0F156B, 0x1B8E9ECB641B58FF, 285), // 5^-68
        (0xAC8B2D36EED2DAC5, 0xE272467E3D222F3F, 283), // 5^-67
        (0xD7ADF884AA879177, 0x5B0ED81DCC6ABB0F, 281), // 5^-66
        (0x86CCBB52EA94BAEA, 0x98E947129FC2B4E9, 278), // 5^-65
        (0xA87FEA27A539E9A5, 0x3F2398D747B36224, 276), // 5^-64
        (0xD29FE4B18E88640E, 0x8EEC7F0D19A03AAD, 274), // 5^-63
        (0x83A3EEEEF9153E89, 0x1953CF68300424AC, 271), // 5^-62
        (0xA48CEAAAB75A8E2B, 0x5FA8C3423C052DD7, 269), // 5^-61
        (0xCDB02555653131B6, 0x3792F412CB06794D, 267), // 5^-60
        (0x808E17555F3EBF11, 0xE2BBD88BBEE40BD0, 264), // 5^-59
        (0xA0B19D2AB70E6ED6, 0x5B6ACEAEAE9D0EC4, 262), // 5^-58
        (0xC8DE047564D20A8B, 0xF245825A5A445275, 260), // 5^-57
        (0xFB158592BE068D2E, 0xEED6E2F0F0D56712, 258), // 5^-56
        (0x9CED737BB6C4183D, 0x55464DD69685606B, 255), // 5^-55
        (0xC428D05AA4751E4C, 0xAA97E14C3C26B886, 253), // 5^-54
        (0xF53304714D9265DF, 0xD53DD99F4B3066A8, 251), // 5^-53
        (0x993FE2C6D07B7FAB, 0xE546A8038EFE4029, 248), // 5^-52
        (0xBF8FDB78849A5F96, 0xDE98520472BDD033, 246), // 5^-51
        (0xEF73D256A5C0F77C, 0x963E66858F6D4440, 244), // 5^-50
        (0x95A8637627989AAD, 0xDDE7001379A44AA8, 241), // 5^-49
        (0xBB127C53B17EC159, 0x5560C018580D5D52, 239), // 5^-48
        (0xE9D71B689DDE71AF, 0xAAB8F01E6E10B4A6, 237), // 5^-47
        (0x9226712162AB070D, 0xCAB3961304CA70E8, 234), // 5^-46
        (0xB6B00D69BB55C8D1, 0x3D607B97C5FD0D22, 232), // 5^-45
        (0xE45C10C42A2B3B05, 0x8CB89A7DB77C506A, 230), // 5^-44
        (0x8EB98A7A9A5B04E3, 0x77F3608E92ADB242, 227), // 5^-43
        (0xB267ED1940F1C61C, 0x55F038B237591ED3, 225), // 5^-42
        (0xDF01E85F912E37A3, 0x6B6C46DEC52F6688, 223), // 5^-41
        (0x8B61313BBABCE2C6, 0x2323AC4B3B3DA015, 220), // 5^-40
        (0xAE397D8AA96C1B77, 0xABEC975E0A0D081A, 218), // 5^-39
        (0xD9C7DCED53C72255, 0x96E7BD358C904A21, 216), // 5^-38
        (0x881CEA14545C7575, 0x7E50D64177DA2E54, 213), // 5^-37
        (0xAA242499697392D2, 0xDDE50BD1D5D0B9E9, 211), // 5^-36
        (0xD4AD2DBFC3D07787, 0x955E4EC64B44E864, 209), // 5^-35
        (0x84EC3C97DA624AB4, 0xBD5AF13BEF0B113E, 206), // 5^-34
        (0xA6274BBDD0FADD61, 0xECB1AD8AEACDD58E, 204), // 5^-33
        (0xCFB11EAD453994BA, 0x67DE18EDA5814AF2, 202), // 5^-32
        (0x81CEB32C4B43FCF4, 0x80EACF948770CED7, 199), // 5^-31
        (0xA2425FF75E14FC31, 0xA1258379A94D028D, 197), // 5^-30
        (0xCAD2F7F5359A3B3E, 0x096EE45813A04330, 195), // 5^-29
        (0xFD87B5F28300CA0D, 0x8BCA9D6E188853FC, 193), // 5^-28
        (0x9E74D1B791E07E48, 0x775EA264CF55347D, 190), // 5^-27
        (0xC612062576589DDA, 0x95364AFE032A819D, 188), // 5^-26
        (0xF79687AED3EEC551, 0x3A83DDBD83F52204, 186), // 5^-25
        (0x9ABE14CD44753B52, 0xC4926A9672793542, 183), // 5^-24
        (0xC16D9A0095928A27, 0x75B7053C0F178293, 181), // 5^-23
        (0xF1C90080BAF72CB1, 0x5324C68B12DD6338, 179), // 5^-22
        (0x971DA05074DA7BEE, 0xD3F6FC16EBCA5E03, 176), // 5^-21
        (0xBCE5086492111AEA, 0x88F4BB1CA6BCF584, 174), // 5^-20
        (0xEC1E4A7DB69561A5, 0x2B31E9E3D06C32E5, 172), // 5^-19
        (0x9392EE8E921D5D07, 0x3AFF322E62439FCF, 169), // 5^-18
        (0xB877AA3236A4B449, 0x09BEFEB9FAD487C2, 167), // 5^-17
        (0xE69594BEC44DE15B, 0x4C2EBE687989A9B3, 165), // 5^-16
        (0x901D7CF73AB0ACD9, 0x0F9D37014BF60A10, 162), // 5^-15
        (0xB424DC35095CD80F, 0x538484C19EF38C94, 160), // 5^-14
        (0xE12E13424BB40E13, 0x2865A5F206B06FB9, 158), // 5^-13
        (0x8CBCCC096F5088CB, 0xF93F87B7442E45D3, 155), // 5^-12
        (0xAFEBFF0BCB24AAFE, 0xF78F69A51539D748, 153), // 5^-11
        (0xDBE6FECEBDEDD5BE, 0xB573440E5A884D1B, 151), // 5^-10
        (0x89705F4136B4A597, 0x31680A88F8953030, 148), // 5^-9
        (0xABCC77118461CEFC, 0xFDC20D2B36BA7C3D, 146), // 5^-8
        (0xD6BF94D5E57A42BC, 0x3D32907604691B4C, 144), // 5^-7
        (0x8637BD05AF6C69B5, 0xA63F9A49C2C1B10F, 141), // 5^-6
        (0xA7C5AC471B478423, 0x0FCF80DC33721D53, 139), // 5^-5
        (0xD1B71758E219652B, 0xD3C36113404EA4A8, 137), // 5^-4
        (0x83126E978D4FDF3B, 0x645A1CAC083126E9, 134), // 5^-3
        (0xA3D70A3D70A3D70A, 0x3D70A3D70A3D70A3, 132), // 5^-2
        (0xCCCCCCCCCCCCCCCC, 0xCCCCCCCCCCCCCCCC, 130), // 5^-1
        (0x8000000000000000, 0x0000000000000000, 127), // 5^0
        (0xA000000000000000, 0x0000000000000000, 125), // 5^1
        (0xC800000000000000, 0x0000000000000000, 123), // 5^2
        (0xFA00000000000000, 0x0000000000000000, 121), // 5^3
        (0x9C40000000000000, 0x0000000000000000, 118), // 5^4
        (0xC350000000000000, 0x0000000000000000, 116), // 5^5
        (0xF424000000000000, 0x0000000000000000, 114), // 5^6
        (0x9896800000000000, 0x0000000000000000, 111), // 5^7
        (0xBEBC200000000000, 0x0000000000000000, 109), // 5^8
        (0xEE6B280000000000, 0x0000000000000000, 107), // 5^9
        (0x9502F90000000000, 0x0000000000000000, 104), // 5^10
        (0xBA43B74000000000, 0x0000000000000000, 102), // 5^11
        (0xE8D4A51000000000, 0x0000000000000000, 100), // 5^12
        (0x9184E72A00000000, 0x0000000000000000, 97), // 5^13
        (0xB5E620F480000000, 0x0000000000000000, 95), // 5^14
        (0xE35FA931A0000000, 0x0000000000000000, 93), // 5^15
        (0x8E1BC9BF04000000, 0x0000000000000000, 90), // 5^16
        (0xB1A2BC2EC5000000, 0x0000000000000000, 88), // 5^17
        (0xDE0B6B3A76400000, 0x0000000000000000, 86), // 5^18
        (0x8AC7230489E80000, 0x0000000000000000, 83), // 5^19
        (0xAD78EBC5AC620000, 0x0000000000000000, 81), // 5^20
        (0xD8D726B7177A8000, 0x0000000000000000, 79), // 5^21
        (0x878678326EAC9000, 0x0000000000000000, 76), // 5^22
        (0xA968163F0A57B400, 0x0000000000000000, 74), // 5^23
        (0xD3C21BCECCEDA100, 0x0000000000000000, 72), // 5^24
        (0x84595161401484A0, 0x0000000000000000, 69), // 5^25
        (0xA56FA5B99019A5C8, 0x0000000000000000, 67), // 5^26
        (0xCECB8F27F4200F3A, 0x0000000000000000, 65), // 5^27
        (0x813F3978F8940984, 0x4000000000000000, 62), // 5^28
        (0xA18F07D736B90BE5, 0x5000000000000000, 60), // 5^29
        (0xC9F2C9CD04674EDE, 0xA400000000000000, 58), // 5^30
        (0xFC6F7C4045812296, 0x4D00000000000000, 56), // 5^31
        (0x9DC5ADA82B70B59D, 0xF020000000000000, 53), // 5^32
        (0xC5371912364CE305, 0x6C28000000000000, 51), // 5^33
        (0xF684DF56C3E01BC6, 0xC732000000000000, 49), // 5^34
        (0x9A130B963A6C115C, 0x3C7F400000000000, 46), // 5^35
        (0xC097CE7BC90715B3, 0x4B9F100000000000, 44), // 5^36
        (0xF0BDC21ABB48DB20, 0x1E86D40000000000, 42), // 5^37
        (0x96769950B50D88F4, 0x1314448000000000, 39), // 5^38
        (0xBC143FA4E250EB31, 0x17D955A000000000, 37), // 5^39
        (0xEB194F8E1AE525FD, 0x5DCFAB0800000000, 35), // 5^40
        (0x92EFD1B8D0CF37BE, 0x5AA1CAE500000000, 32), // 5^41
        (0xB7ABC627050305AD, 0xF14A3D9E40000000, 30), // 5^42
        (0xE596B7B0C643C719, 0x6D9CCD05D0000000, 28), // 5^43
        (0x8F7E32CE7BEA5C6F, 0xE4820023A2000000, 25), // 5^44
        (0xB35DBF821AE4F38B, 0xDDA2802C8A800000, 23), // 5^45
        (0xE0352F62A19E306E, 0xD50B2037AD200000, 21), // 5^46
        (0x8C213D9DA502DE45, 0x4526F422CC340000, 18), // 5^47
        (0xAF298D050E4395D6, 0x9670B12B7F410000, 16), // 5^48
        (0xDAF3F04651D47B4C, 0x3C0CDD765F114000, 14), // 5^49
        (0x88D8762BF324CD0F, 0xA5880A69FB6AC800, 11), // 5^50
        (0xAB0E93B6EFEE0053, 0x8EEA0D047A457A00, 9), // 5^51
        (0xD5D238A4ABE98068, 0x72A4904598D6D880, 7), // 5^52
        (0x85A36366EB71F041, 0x47A6DA2B7F864750, 4), // 5^53
        (0xA70C3C40A64E6C51, 0x999090B65F67D924, 2), // 5^54
        (0xD0CF4B50CFE20765, 0xFFF4B4E3F741CF6D, 0), // 5^55
        (0x82818F1281ED449F, 0xBFF8F10E7A8921A4, -3), // 5^56
        (0xA321F2D7226895C7, 0xAFF72D52192B6A0D, -5), // 5^57
        (0xCBEA6F8CEB02BB39, 0x9BF4F8A69F764490, -7), // 5^58
        (0xFEE50B7025C36A08, 0x02F236D04753D5B4, -9), // 5^59
        (0x9F4F2726179A2245, 0x01D762422C946590, -12), // 5^60
        (0xC722F0EF9D80AAD6, 0x424D3AD2B7B97EF5, -14), // 5^61
        (0xF8EBAD2B84E0D58B, 0xD2E0898765A7DEB2, -16), // 5^62
        (0x9B934C3B330C8577, 0x63CC55F49F88EB2F, -19), // 5^63
        (0xC2781F49FFCFA6D5, 0x3CBF6B71C76B25FB, -21), // 5^64
        (0xF316271C7FC3908A, 0x8BEF464E3945EF7A, -23), // 5^65
        (0x97EDD871CFDA3A56, 0x97758BF0E3CBB5AC, -26), // 5^66
        (0xBDE94E8E43D0C8EC, 0x3D52EEED1CBEA317, -28), // 5^67
        (0xED63A231D4C4FB27, 0x4CA7AAA863EE4BDD, -30), // 5^68
        (0x945E455F24FB1CF8, 0x8FE8CAA93E74EF6A, -33), // 5^69
        (0xB975D6B6EE39E436, 0xB3E2FD538E122B44, -35), // 5^70
        (0xE7D34C64A9C85D44, 0x60DBBCA87196B616, -37), // 5^71
        (0x90E40FBEEA1D3A4A, 0xBC8955E946FE31CD, -40), // 5^72
        (0xB51D13AEA4A488DD, 0x6BABAB6398BDBE41, -42), // 5^73
        (0xE264589A4DCDAB14, 0xC696963C7EED2DD1, -44), // 5^74
        (0x8D7EB76070A08AEC, 0xFC1E1DE5CF543CA2, -47), // 5^75
        (0xB0DE65388CC8ADA8, 0x3B25A55F43294BCB, -49), // 5^76
        (0xDD15FE86AFFAD912, 0x49EF0EB713F39EBE, -51), // 5^77
        (0x8A2DBF142DFCC7AB, 0x6E3569326C784337, -54), // 5^78
        (0xACB92ED9397BF996, 0x49C2C37F07965404, -56), // 5^79
        (0xD7E77A8F87DAF7FB, 0xDC33745EC97BE906, -58), // 5^80
        (0x86F0AC99B4E8DAFD, 0x69A028BB3DED71A3, -61), // 5^81
        (0xA8ACD7C0222311BC, 0xC40832EA0D68CE0C, -63), // 5^82
        (0xD2D80DB02AABD62B, 0xF50A3FA490C30190, -65), // 5^83
        (0x83C7088E1AAB65DB, 0x792667C6DA79E0FA, -68), // 5^84
        (0xA4B8CAB1A1563F52, 0x577001B891185938, -70), // 5^85
        (0xCDE6FD5E09ABCF26, 0xED4C0226B55E6F86, -72), // 5^86
        (0x80B05E5AC60B6178, 0x544F8158315B05B4, -75), // 5^87
        (0xA0DC75F1778E39D6, 0x696361AE3DB1C721, -77), // 5^88
        (0xC913936DD571C84C, 0x03BC3A19CD1E38E9, -79), // 5^89
        (0xFB5878494ACE3A5F, 0x04AB48A04065C723, -81), // 5^90
        (0x9D174B2DCEC0E47B, 0x62EB0D64283F9C76, -84), // 5^91
        (0xC45D1DF942711D9A, 0x3BA5D0BD324F8394, -86), // 5^92
        (0xF5746577930D6500, 0xCA8F44EC7EE36479, -88), // 5^93
        (0x9968BF6ABBE85F20, 0x7E998B13CF4E1ECB, -91), // 5^94
        (0xBFC2EF456AE276E8, 0x9E3FEDD8C321A67E, -93), // 5^95
        (0xEFB3AB16C59B14A2, 0xC5CFE94EF3EA101E, -95), // 5^96
        (0x95D04AEE3B80ECE5, 0xBBA1F1D158724A12, -98), // 5^97
        (0xBB445DA9CA61281F, 0x2A8A6E45AE8EDC97, -100), // 5^98
        (0xEA1575143CF97226, 0xF52D09D71A3293BD, -102), // 5^99
        (0x924D692CA61BE758, 0x593C2626705F9C56, -105), // 5^100
    ]

    /// Parses `bytes[start..<end]` (surrounding spaces allowed) as a decimal floating-point number.
    ///
    /// Accepts an optional sign, digits with an optional `.`, an optional exponent (`e`/`E`), and
    /// `nan`, `inf`, `infinity` in any case. Returns `nil` for anything else, including an empty field.
    @inline(__always)
    static func parseDouble(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        guard let base = bytes.baseAddress else { return nil }
        return parseDouble(base, start, end)
    }

    /// Parses `p[start..<end]` (surrounding spaces allowed) as a decimal floating-point number: an
    /// optional sign, digits with an optional `.`, an optional exponent, or `nan`/`inf`/`infinity`;
    /// `nil` for anything else.
    public static func parseDouble(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        var i = start
        var e = end
        while i < e && (p[i] == 0x20 || p[i] == 0x09) { i += 1 }
        while e > i && (p[e - 1] == 0x20 || p[e - 1] == 0x09) { e -= 1 }
        guard i < e else { return nil }
        let textStart = i
        var negative = false
        if p[i] == 0x2D { negative = true; i += 1 } else if p[i] == 0x2B { i += 1 }
        guard i < e else { return nil }

        var significand: UInt64 = 0
        var significantDigits = 0
        var droppedDigits = false
        var decimalExponent = 0
        var sawDigit = false

        // Integer part.
        while i < e {
            let d = p[i] &- 0x30
            if d > 9 { break }
            sawDigit = true
            if significantDigits < 19 {
                if significand != 0 || d != 0 {
                    significand = significand &* 10 &+ UInt64(d)
                    significantDigits += 1
                }
            } else {
                decimalExponent += 1
                if d != 0 { droppedDigits = true }
            }
            i += 1
        }
        // Fraction.
        if i < e && p[i] == 0x2E {
            i += 1
            while i < e {
                let d = p[i] &- 0x30
                if d > 9 { break }
                sawDigit = true
                if significantDigits < 19 {
                    if significand != 0 || d != 0 {
                        significand = significand &* 10 &+ UInt64(d)
                        significantDigits += 1
                    }
                    decimalExponent -= 1
                } else if d != 0 {
                    droppedDigits = true
                }
                i += 1
            }
        }
        guard sawDigit else {
            return parseSpecial(p, textStart, e)
        }
        // Exponent.
        if i < e && (p[i] | 0x20) == 0x65 {
            i += 1
            var exponentNegative = false
            if i < e && (p[i] == 0x2D || p[i] == 0x2B) {
                exponentNegative = p[i] == 0x2D
                i += 1
            }
            guard i < e else { return nil }
            var exponent = 0
            while i < e {
                let d = p[i] &- 0x30
                if d > 9 { return nil }
                if exponent < 100_000 { exponent = exponent * 10 + Int(d) }
                i += 1
            }
            decimalExponent += exponentNegative ? -exponent : exponent
        }
        guard i == e else { return nil }

        if significand == 0 && !droppedDigits { return negative ? -0.0 : 0.0 }
        if !droppedDigits, let value = fastPath(significand, decimalExponent) {
            return negative ? -value : value
        }
        return slowPath(p, textStart, e)
    }

    /// `significand · 10^decimalExponent`, correctly rounded, when the fast path can decide it; `nil` when
    /// only the text can (then parse the text). For scanners that
    /// gather the significand (at most 19 digits, none dropped) while they check a number's grammar.
    public static func value(significand: UInt64, decimalExponent: Int) -> Double? {
        significand == 0 ? 0 : fastPath(significand, decimalExponent)
    }

    /// `w · 10^q` when it can be computed exactly; `nil` when the slow path must decide.
    @inline(__always)
    static func fastPath(_ w: UInt64, _ q: Int) -> Double? {
        // Clinger: both factors exact, one rounding.
        if w <= 1 << 53 && q >= -22 && q <= 22 {
            let d = Double(w)
            return q >= 0 ? d * exactPowersOfTen[q] : d / exactPowersOfTen[-q]
        }
        guard q >= smallestPower && q <= largestPower else { return nil }
        let power = powersOfFive[q - smallestPower]
        let leadingZeros = w.leadingZeroBitCount
        let wn = w << UInt64(leadingZeros)
        // P = wn × T, 192 bits: (p2, p1, p0).
        let high = wn.multipliedFullWidth(by: power.hi)
        let low = wn.multipliedFullWidth(by: power.lo)
        let (p1, carry) = high.low.addingReportingOverflow(low.high)
        let p2 = high.high &+ (carry ? 1 : 0)
        // The truncated table entry is below the exact value by less than one unit, so the exact
        // product lies in [P, P + 2^64): only the bits above 2^64 (p2, p1) matter for the decision.
        let topBitSet = p2 >> 63 == 1
        let discarded = topBitSet ? 139 : 138  // bits below the 53 kept ones
        let keptShift = UInt64(discarded - 128)
        var mantissa = p2 >> keptShift
        let restMask = (UInt64(1) << keptShift) &- 1
        let restHigh = p2 & restMask  // bits discarded−1 … 128 of the rest, above p1
        let halfHigh = UInt64(1) << (keptShift - 1)
        // X = rest >> 64 as (restHigh, p1); exact X is X or X + 1.
        // Round down when X + 1 < half; round up when X > half and X + 1 < 2^(discarded − 64).
        let roundUp: Bool
        if restHigh < halfHigh - 1 || (restHigh == halfHigh - 1 && p1 < UInt64.max - 1) {
            roundUp = false
        } else if restHigh >= halfHigh && !(restHigh == halfHigh && p1 == 0)
            && !(restHigh == restMask && p1 >= UInt64.max - 1) {
            roundUp = true
        } else {
            return nil
        }
        var binaryExponent = discarded + q - power.shift - leadingZeros
        if roundUp {
            mantissa += 1
            if mantissa == 1 << 53 {
                mantissa = 1 << 52
                binaryExponent += 1
            }
        }
        let biased = binaryExponent + 52 + 1023
        guard biased > 0 && biased < 2047 else { return nil }
        let bits = (UInt64(biased) << 52) | (mantissa & ((1 << 52) - 1))
        return Double(bitPattern: bits)
    }

    /// The standard library's correctly rounded parser, for the rare cases the fast path declines.
    static func slowPath(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        let text = String(decoding: UnsafeBufferPointer(start: p + start, count: end - start), as: UTF8.self)
        return Double(text)
    }

    /// `nan`, `inf`, `infinity` (any case, optional sign).
    static func parseSpecial(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        var i = start
        var negative = false
        if i < end && (p[i] == 0x2D || p[i] == 0x2B) {
            negative = p[i] == 0x2D
            i += 1
        }
        var word: UInt64 = 0
        var length = 0
        while i < end && length < 8 {
            word = word << 8 | UInt64(p[i] | 0x20)
            length += 1
            i += 1
        }
        guard i == end else { return nil }
        switch (length, word) {
        case (3, 0x6E_61_6E): return .nan  // "nan"
        case (3, 0x69_6E_66), (8, 0x69_6E_66_69_6E_69_74_79): return negative ? -.infinity : .infinity  // "inf", "infinity"
        default: return nil
        }
    }

    /// Parses `bytes[start..<end]` (surrounding spaces allowed) as a decimal integer that fits `Int64`.
    public static func parseInt64(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int64? {
        var i = start
        var e = end
        while i < e && (p[i] == 0x20 || p[i] == 0x09) { i += 1 }
        while e > i && (p[e - 1] == 0x20 || p[e - 1] == 0x09) { e -= 1 }
        guard i < e else { return nil }
        var negative = false
        if p[i] == 0x2D { negative = true; i += 1 } else if p[i] == 0x2B { i += 1 }
        guard i < e else { return nil }
        var value: Int64 = 0
        while i < e {
            let d = p[i] &- 0x30
            guard d <= 9 else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int64(d))
            guard !o1 && !o2 else { return nil }
            value = s
            i += 1
        }
        return negative ? -value : value
    }
}
