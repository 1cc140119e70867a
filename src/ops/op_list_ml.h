/*
 * The ai.onnx.ml operator table (same format and sort rule as
 * op_list_onnx.h: strictly sorted by name in byte order). Columns: op type,
 * shape function, first ai.onnx.ml opset version defining the op, cost rule.
 */
/*      op type                   shape function                        since, cost rule */
OSI_OP( ArrayFeatureExtractor,      osi_op_ml_array_feature_extractor,      1, NONE )
OSI_OP( Binarizer,                  osi_op_ml_same,                         1, EW(1) )
OSI_OP( CastMap,                    osi_op_ml_cast_map,                     1, NONE )
OSI_OP( CategoryMapper,             osi_op_ml_category_mapper,              1, NONE )
OSI_OP( DictVectorizer,             osi_op_ml_dict_vectorizer,              1, NONE )
OSI_OP( FeatureVectorizer,          osi_op_ml_feature_vectorizer,           1, NONE )
OSI_OP( Imputer,                    osi_op_ml_same,                         1, EW(1) )
OSI_OP( LabelEncoder,               osi_op_ml_label_encoder,                1, NONE )
OSI_OP( LinearClassifier,           osi_op_ml_linear_classifier,            1, LINEAR_ML )
OSI_OP( LinearRegressor,            osi_op_ml_linear_regressor,             1, LINEAR_ML )
OSI_OP( Normalizer,                 osi_op_ml_float_same,                   1, EW(3) )
OSI_OP( OneHotEncoder,              osi_op_ml_one_hot_encoder,              1, NONE )
OSI_OP( SVMClassifier,              osi_op_ml_svm_classifier,               1, UNCOUNTED(NOT_MODELLED) )
OSI_OP( SVMRegressor,               osi_op_ml_svm_regressor,                1, UNCOUNTED(NOT_MODELLED) )
OSI_OP( Scaler,                     osi_op_ml_float_same,                   1, EW(2) )
OSI_OP( TreeEnsemble,               osi_op_ml_tree_ensemble,                5, UNCOUNTED(TREES) )
OSI_OP( TreeEnsembleClassifier,     osi_op_ml_tree_classifier,              1, UNCOUNTED(TREES) )
OSI_OP( TreeEnsembleRegressor,      osi_op_ml_tree_regressor,               1, UNCOUNTED(TREES) )
OSI_OP( ZipMap,                     osi_op_ml_zip_map,                      1, NONE )
